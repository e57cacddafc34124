package dev.perflab.thorntail;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import javax.annotation.Resource;
import javax.enterprise.context.ApplicationScoped;
import javax.sql.DataSource;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once the service is deployed (see Main) and while the database answers a query:
 * /health/ready is 503 otherwise.
 */
@Readiness
@ApplicationScoped
public class DatabaseReadiness implements HealthCheck {

    @Resource(lookup = "java:jboss/datasources/PerflabDS")
    DataSource dataSource;

    @Override
    public HealthCheckResponse call() {
        if (!Boolean.getBoolean(Main.DEPLOYED)) {
            return HealthCheckResponse.named("deployment").down().build();
        }
        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(2);
            statement.execute("SELECT 1");
            return HealthCheckResponse.up("database");
        } catch (SQLException e) {
            return HealthCheckResponse.named("database").down().withData("error", e.getMessage()).build();
        }
    }
}
