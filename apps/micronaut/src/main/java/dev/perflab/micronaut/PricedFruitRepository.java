package dev.perflab.micronaut;

import java.util.List;
import java.util.Optional;

import io.micronaut.data.annotation.Join;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;

/**
 * Micronaut Data JDBC loads no association lazily: what a query returns is named on the method with
 * @Join, and becomes joins of that one SQL query. LEFT_FETCH keeps a fruit sold nowhere.
 */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface PricedFruitRepository extends GenericRepository<PricedFruit, Long> {

    @Join(value = "storePrices", type = Join.Type.LEFT_FETCH)
    @Join(value = "storePrices.store", type = Join.Type.LEFT_FETCH)
    List<PricedFruit> findAllOrderByName();

    @Join(value = "storePrices", type = Join.Type.LEFT_FETCH)
    @Join(value = "storePrices.store", type = Join.Type.LEFT_FETCH)
    Optional<PricedFruit> findByName(String name);
}
