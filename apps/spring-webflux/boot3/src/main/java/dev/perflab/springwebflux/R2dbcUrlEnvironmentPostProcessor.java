package dev.perflab.springwebflux;

import java.util.Map;

import org.springframework.boot.SpringApplication;
// Spring Boot 3.x line: EnvironmentPostProcessor lives in boot.env (Boot 4: org.springframework.boot).
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The lab gives one database URL, DB_URL, in JDBC form (jdbc:postgresql://host:port/db); R2DBC
 * wants r2dbc:postgresql://host:port/db. Placeholders cannot rewrite a prefix, so this derives
 * spring.r2dbc.url from perflab.db.url (DB_URL, see application.properties) once the
 * configuration files are loaded. It is added last: an explicit spring.r2dbc.url (e.g. env
 * SPRING_R2DBC_URL) still wins. Registered in META-INF/spring.factories.
 */
public class R2dbcUrlEnvironmentPostProcessor implements EnvironmentPostProcessor {

    private static final String JDBC_PREFIX = "jdbc:";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        String jdbcUrl = environment.getProperty("perflab.db.url");
        if (jdbcUrl != null && jdbcUrl.startsWith(JDBC_PREFIX)) {
            String r2dbcUrl = "r2dbc:" + jdbcUrl.substring(JDBC_PREFIX.length());
            environment.getPropertySources()
                    .addLast(new MapPropertySource("perflabR2dbcUrl", Map.of("spring.r2dbc.url", r2dbcUrl)));
        }
    }
}
