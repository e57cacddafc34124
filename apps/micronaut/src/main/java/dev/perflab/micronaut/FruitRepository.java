package dev.perflab.micronaut;

import java.util.List;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface FruitRepository extends CrudRepository<Fruit, Long> {

    List<Fruit> findAllOrderByName();

    boolean existsByName(String name);

    boolean existsByNameAndIdNotEqual(String name, Long id);
}
