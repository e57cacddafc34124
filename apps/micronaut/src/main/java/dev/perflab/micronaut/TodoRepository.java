package dev.perflab.micronaut;

import java.util.List;

import io.micronaut.data.annotation.Join;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.Sort;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface TodoRepository extends GenericRepository<Todo, Long> {

    /** Every todo with its user and categories in one SQL query (joins, not a query per todo). */
    @Join(value = "user", type = Join.Type.FETCH)
    @Join(value = "categories", type = Join.Type.LEFT_FETCH)
    List<Todo> findAll(Sort sort);
}
