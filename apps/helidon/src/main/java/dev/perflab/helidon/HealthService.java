package dev.perflab.helidon;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import javax.sql.DataSource;

import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/** /health/live and /health/ready (ready while the database answers a query). */
final class HealthService implements HttpService {

    private final DataSource dataSource;

    HealthService(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/live", (req, res) -> res.send(Map.of("status", "UP")))
                .get("/ready", this::ready);
    }

    private void ready(ServerRequest req, ServerResponse res) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("SELECT 1");
            res.send(Map.of("status", "UP"));
        } catch (SQLException e) {
            res.status(Status.SERVICE_UNAVAILABLE_503);
            res.send(Map.of("status", "DOWN"));
        }
    }
}
