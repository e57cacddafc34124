package dev.perflab.micronaut;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.server.exceptions.response.Error;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.JsonErrorResponseBodyProvider;
import jakarta.inject.Singleton;

/**
 * Every error Micronaut answers (unknown route, wrong method, 415, malformed JSON, validation,
 * HttpStatusException, ...) goes through the error response processor, which asks this bean for
 * the JSON body: here the contract's {"status": N, "error": "..."} instead of Micronaut's default.
 */
@Singleton
@Replaces(JsonErrorResponseBodyProvider.class)
public class ErrorBodyProvider implements JsonErrorResponseBodyProvider<ErrorBody> {

    @Override
    public ErrorBody body(ErrorContext context, HttpResponse<?> response) {
        String message = context.getErrors().stream()
                .map(Error::getMessage)
                .filter(m -> m != null && !m.isBlank())
                .findFirst()
                .orElse(response.reason());
        if (message == null || message.isBlank()) {
            message = response.getStatus().getReason();
        }
        return new ErrorBody(response.code(), message);
    }
}
