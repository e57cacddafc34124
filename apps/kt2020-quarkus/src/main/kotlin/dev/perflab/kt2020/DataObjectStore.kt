package dev.perflab.kt2020

import io.agroal.api.AgroalDataSource
import jakarta.enterprise.context.ApplicationScoped
import org.eclipse.microprofile.config.inject.ConfigProperty
import java.sql.Connection
import java.util.concurrent.atomic.AtomicInteger

/**
 * The blog's DATA_OBJECTS table. "as-published" keeps the blog's three choices on purpose: every
 * call inside synchronized(this), the pool's metrics printed on every connection taken, and every
 * POST dropping and re-creating the table before its INSERT. "fixed" is the same code without
 * them. Both bind parameters (the blog concatenated input into SQL: never shipped here).
 */
@ApplicationScoped
class DataObjectStore(
    private val dataSource: AgroalDataSource,
    @ConfigProperty(name = "kt2020.variant") variant: String,
) {
    private val asPublished = Variant.parse(variant) == Variant.AS_PUBLISHED
    private val ids = AtomicInteger(1)

    init {
        // the blog printed the pool's metrics: collect them (Agroal's switch, without a metrics extension)
        if (asPublished) dataSource.configuration.setMetricsEnabled(true)
    }

    fun find(data: String): DataObject? = call {
        connection().use { c ->
            c.prepareStatement("SELECT DATA FROM DATA_OBJECTS WHERE DATA = ?").use { st ->
                st.setString(1, data)
                st.executeQuery().use { rs -> if (rs.next()) DataObject(rs.getString(1)) else null }
            }
        }
    }

    fun save(data: String) = call {
        connection().use { c ->
            if (asPublished) {
                c.createStatement().use { st ->
                    st.execute("DROP TABLE DATA_OBJECTS IF EXISTS")
                    st.execute("CREATE TABLE DATA_OBJECTS(ID INT, DATA VARCHAR(100))")
                }
            }
            c.prepareStatement("INSERT INTO DATA_OBJECTS(ID, DATA) VALUES(?, ?)").use { st ->
                st.setInt(1, ids.incrementAndGet())
                st.setString(2, data)
                st.executeUpdate()
            }
        }
    }

    private fun <T> call(block: () -> T): T = if (asPublished) synchronized(this) { block() } else block()

    private fun connection(): Connection {
        val connection = dataSource.connection
        if (asPublished) println(dataSource.metrics)
        return connection
    }
}
