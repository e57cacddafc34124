package dev.perflab.reactive;

import io.vertx.pgclient.PgException;

final class SqlErrors {

    private SqlErrors() {
    }

    /** A concurrent writer won the race past the lookup: the unique constraint decides (409). */
    static boolean isUniqueViolation(Throwable failure) {
        return failure instanceof PgException pg && "23505".equals(pg.getSqlState());
    }
}
