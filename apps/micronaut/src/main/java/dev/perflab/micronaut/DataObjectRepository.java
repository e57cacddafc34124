package dev.perflab.micronaut;

import java.util.Optional;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface DataObjectRepository extends CrudRepository<DataObject, Long> {

    Optional<DataObject> findByData(String data);

    boolean existsByData(String data);
}
