package dev.perflab.helidon;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

import io.helidon.config.Config;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** The connection pool, with the contract's settings, and the one transaction a write runs in. */
final class Database {

    /** PostgreSQL's SQLSTATE for a unique constraint violation. */
    static final String UNIQUE_VIOLATION = "23505";

    private Database() {
    }

    static HikariDataSource dataSource(Config db) {
        HikariConfig hikari = new HikariConfig();
        hikari.setPoolName("perflab");
        hikari.setJdbcUrl(db.get("url").asString().get());
        hikari.setUsername(db.get("user").asString().get());
        hikari.setPassword(db.get("password").asString().get());
        hikari.setMinimumIdle(db.get("pool.min").asInt().get());
        hikari.setMaximumPoolSize(db.get("pool.max").asInt().get());
        // Parity: every app waits at most 5 s for a pool connection.
        hikari.setConnectionTimeout(db.get("pool.connection-timeout").as(Duration.class).get().toMillis());
        // Start even when the database is not up yet; /health/ready says 503 until it is.
        hikari.setInitializationFailTimeout(-1);
        return new HikariDataSource(hikari);
    }

    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Runs work in one transaction: committed when it returns, rolled back when it throws. */
    static <T> T inTransaction(javax.sql.DataSource dataSource, Work<T> work) {
        return transaction(dataSource, false, work);
    }

    /** As inTransaction, in a read-only transaction (the driver begins it with BEGIN READ ONLY). */
    static <T> T inReadOnlyTransaction(javax.sql.DataSource dataSource, Work<T> work) {
        return transaction(dataSource, true, work);
    }

    private static <T> T transaction(javax.sql.DataSource dataSource, boolean readOnly, Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            if (readOnly) {
                connection.setReadOnly(true);
            }
            connection.setAutoCommit(false);
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
                if (readOnly) {
                    connection.setReadOnly(false);
                }
            }
        } catch (SQLException e) {
            throw new DatabaseException(e);
        }
    }

    /** Runs a read on a connection in auto-commit mode (one statement, one implicit transaction). */
    static <T> T read(javax.sql.DataSource dataSource, Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            return work.run(connection);
        } catch (SQLException e) {
            throw new DatabaseException(e);
        }
    }

    static final class DatabaseException extends RuntimeException {
        DatabaseException(SQLException cause) {
            super(cause.getMessage(), cause);
        }

        boolean uniqueViolation() {
            return UNIQUE_VIOLATION.equals(((SQLException) getCause()).getSQLState());
        }
    }
}
