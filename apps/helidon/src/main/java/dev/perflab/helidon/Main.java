package dev.perflab.helidon;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import io.helidon.logging.common.LogConfig;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The perflab contract on Helidon SE: one WebServer (every request on its own virtual thread), the
 * routing built from HttpServices, and JDBC through a HikariCP pool.
 */
public final class Main {

    private static final Logger LOGGER = Logger.getLogger(Main.class.getName());

    private Main() {
    }

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        Config config = Config.builder()
                .sources(ConfigSources.create(contractEnvironment()), ConfigSources.classpath("application.yaml"))
                .build();
        Config.global(config);

        HikariDataSource dataSource = Database.dataSource(config.get("db"));
        String mode = config.get("perflab.mode").asString().orElse("jvm");

        WebServer server = WebServer.builder()
                .config(config.get("server"))
                .directHandlers(Errors::directHandlers)
                .routing(routing -> routing(routing, dataSource, mode))
                .build()
                .start();

        double seconds = ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0;
        LOGGER.info(String.format(Locale.ROOT, "perflab-helidon (%s) started in %.3fs. Listening on port %d",
                mode, seconds, server.port()));
    }

    /**
     * The contract's environment variables (HTTP_PORT, DB_URL, ...) under the config keys they set;
     * application.yaml holds the defaults. Helidon maps only SERVER_PORT-style names by itself.
     */
    static Map<String, String> contractEnvironment() {
        Map<String, String> keys = Map.of(
                "HTTP_PORT", "server.port",
                "PERFLAB_MODE", "perflab.mode",
                "DB_URL", "db.url",
                "DB_USER", "db.user",
                "DB_PASSWORD", "db.password",
                "DB_POOL_MIN", "db.pool.min",
                "DB_POOL_MAX", "db.pool.max");
        Map<String, String> values = new HashMap<>();
        keys.forEach((variable, key) -> {
            String value = System.getenv(variable);
            if (value != null && !value.isBlank()) {
                values.put(key, value);
            }
        });
        return values;
    }

    static void routing(HttpRouting.Builder routing, HikariDataSource dataSource, String mode) {
        Errors.register(routing);
        FruitPriceService fruitPrices = new FruitPriceService(dataSource);
        routing.register("/hello", new HelloService(mode))
                .register("/fruits", new FruitService(dataSource))
                .register("/fruit-prices-joined", fruitPrices::joinedRouting)
                .register("/fruit-prices", fruitPrices)
                .register("/todos", new TodoService(dataSource))
                .register("/data", new DataService(dataSource))
                .register("/health", new HealthService(dataSource))
                .any(Errors::notFound);
    }
}
