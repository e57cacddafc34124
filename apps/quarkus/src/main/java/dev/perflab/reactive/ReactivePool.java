package dev.perflab.reactive;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnectOptions;
import jakarta.inject.Singleton;

/**
 * Quarkus configures the reactive pool (URL, credentials, max-size = DB_POOL_MAX) but has no setting
 * for how long a request waits for a free connection (Vert.x: 30 s). Parity: 5 s, as every app.
 */
@Singleton
public class ReactivePool implements PgPoolCreator {

    @Override
    public Pool create(Input input) {
        PoolOptions options = input.poolOptions()
                .setConnectionTimeout(5)
                .setConnectionTimeoutUnit(TimeUnit.SECONDS);
        return PgBuilder.pool()
                .with(options)
                .connectingTo(List.<SqlConnectOptions>copyOf(input.pgConnectOptionsList()))
                .using(input.vertx())
                .build();
    }
}
