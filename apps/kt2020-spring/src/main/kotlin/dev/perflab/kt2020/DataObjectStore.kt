package dev.perflab.kt2020

import com.zaxxer.hikari.HikariDataSource
import org.slf4j.LoggerFactory
import org.springframework.beans.factory.annotation.Value
import org.springframework.jdbc.core.JdbcTemplate
import org.springframework.jdbc.datasource.DelegatingDataSource
import org.springframework.stereotype.Repository
import java.sql.Connection
import java.util.concurrent.atomic.AtomicInteger

/**
 * The blog's DATA_OBJECTS table. "as-published" keeps the blog's three choices on purpose: every
 * call inside synchronized(this), a line of the pool's figures on every connection taken (the
 * blog's Hikari TRACE logging; the mode also sets that level), and every POST dropping and
 * re-creating the table before its INSERT. "fixed" is the same code without them. Both bind
 * parameters.
 */
@Repository
class DataObjectStore(pool: HikariDataSource, @Value("\${kt2020.variant}") variant: String) {
    private val asPublished = Variant.parse(variant) == Variant.AS_PUBLISHED
    private val ids = AtomicInteger(1)
    private val jdbc = JdbcTemplate(if (asPublished) PoolLoggingDataSource(pool) else pool)

    fun find(data: String): DataObject? = call {
        jdbc.query("SELECT DATA FROM DATA_OBJECTS WHERE DATA = ?", { rs, _ -> DataObject(rs.getString(1)) }, data)
            .firstOrNull()
    }

    fun save(data: String) = call {
        if (asPublished) {
            jdbc.execute("DROP TABLE DATA_OBJECTS IF EXISTS")
            jdbc.execute("CREATE TABLE DATA_OBJECTS(ID INT, DATA VARCHAR(100))")
        }
        jdbc.update("INSERT INTO DATA_OBJECTS(ID, DATA) VALUES(?, ?)", ids.incrementAndGet(), data)
    }

    private fun <T> call(block: () -> T): T = if (asPublished) synchronized(this) { block() } else block()

    /** Logs the pool's figures each time a connection is taken, as the blog's configuration did. */
    private class PoolLoggingDataSource(private val pool: HikariDataSource) : DelegatingDataSource(pool) {
        private val log = LoggerFactory.getLogger(PoolLoggingDataSource::class.java)

        override fun getConnection(): Connection {
            val connection = super.getConnection()
            val stats = pool.hikariPoolMXBean
            log.info("pool stats (total={}, active={}, idle={}, waiting={})", stats.totalConnections,
                stats.activeConnections, stats.idleConnections, stats.threadsAwaitingConnection)
            return connection
        }
    }
}
