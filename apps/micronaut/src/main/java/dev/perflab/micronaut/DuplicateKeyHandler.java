package dev.perflab.micronaut;

import java.sql.SQLException;

import io.micronaut.context.annotation.Requires;
import io.micronaut.data.exceptions.DataAccessException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;

/**
 * A concurrent insert can still win the race past the lookup in a write: the unique constraint
 * decides (PostgreSQL's SQLSTATE 23505), and the contract answers 409, never 500.
 */
@Produces
@Singleton
@Requires(classes = {DataAccessException.class, ExceptionHandler.class})
public class DuplicateKeyHandler implements ExceptionHandler<DataAccessException, HttpResponse<?>> {

    private final ErrorResponseProcessor<?> errors;

    public DuplicateKeyHandler(ErrorResponseProcessor<?> errors) {
        this.errors = errors;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, DataAccessException exception) {
        boolean duplicate = false;
        for (Throwable t = exception; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && "23505".equals(sql.getSQLState())) {
                duplicate = true;
                break;
            }
        }
        ErrorContext context = ErrorContext.builder(request)
                .cause(exception)
                .errorMessage(duplicate ? "Duplicate value" : "Internal Server Error")
                .build();
        return errors.processResponse(context, duplicate ? HttpResponse.status(io.micronaut.http.HttpStatus.CONFLICT)
                : HttpResponse.serverError());
    }
}
