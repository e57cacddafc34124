package dev.perflab.reactive;

import java.util.List;
import java.util.Map;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The lab gives one database URL, DB_URL, in JDBC form (jdbc:postgresql://host:port/db). The
 * reactive client wants the same URL without "jdbc:" (postgresql://host:port/db), and config
 * expressions cannot cut a prefix, so this derives quarkus.datasource.reactive.url from the
 * resolved quarkus.datasource.jdbc.url. Its ordinal is low: an explicit
 * quarkus.datasource.reactive.url (e.g. env QUARKUS_DATASOURCE_REACTIVE_URL) still wins.
 * Registered in META-INF/services/io.smallrye.config.ConfigSourceFactory.
 */
public class ReactiveUrlConfigSourceFactory implements ConfigSourceFactory {

    private static final String JDBC_URL = "quarkus.datasource.jdbc.url";
    private static final String REACTIVE_URL = "quarkus.datasource.reactive.url";
    private static final String JDBC_PREFIX = "jdbc:";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        ConfigValue jdbc = context.getValue(JDBC_URL);
        if (jdbc == null || jdbc.getValue() == null || !jdbc.getValue().startsWith(JDBC_PREFIX)) {
            return List.of();
        }
        String reactive = jdbc.getValue().substring(JDBC_PREFIX.length());
        return List.of(new PropertiesConfigSource(Map.of(REACTIVE_URL, reactive), "perflab-reactive-url", 50));
    }
}
