package dev.perflab.micronaut;

import java.sql.Connection;
import java.util.Map;

import javax.sql.DataSource;

import io.micronaut.jdbc.DataSourceResolver;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/**
 * The contract's /health/live and /health/ready (micronaut-management's health endpoint has other paths:
 * /health, /health/liveness, /health/readiness), as two plain endpoints.
 */
@Controller("/health")
public class HealthController {

    private final DataSource dataSource;

    // Micronaut Data hands out a connection only inside its connection or transaction scope; the
    // check asks the pool itself (the resolver unwraps Micronaut Data's delegate).
    public HealthController(DataSource dataSource, DataSourceResolver resolver) {
        this.dataSource = resolver.resolve(dataSource);
    }

    @Get("/live")
    public Map<String, String> live() {
        return Map.of("status", "UP");
    }

    /** UP while the pool hands out a connection that answers (at most the pool's 5 s wait). */
    @Get("/ready")
    @ExecuteOn(TaskExecutors.BLOCKING)
    public HttpResponse<Map<String, String>> ready() {
        try (Connection connection = dataSource.getConnection()) {
            if (connection.isValid(3)) {
                return HttpResponse.ok(Map.of("status", "UP"));
            }
        } catch (Exception e) {
            // down: answered below
        }
        return HttpResponse.<Map<String, String>>status(HttpStatus.SERVICE_UNAVAILABLE).body(Map.of("status", "DOWN"));
    }
}
