package dev.perflab.springwebflux.web;

import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.TypeMismatchException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.bind.support.WebExchangeBindException;
import org.springframework.web.reactive.result.method.annotation.ResponseEntityExceptionHandler;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;
import org.springframework.web.util.DisconnectedClientHelper;

import reactor.core.publisher.Mono;

/**
 * Turns every exception of request handling into the contract's JSON error body.
 *
 * <p>Extending {@link ResponseEntityExceptionHandler} keeps WebFlux's own status codes and headers
 * (405 with Allow, 415 with Accept); only the body is replaced, in {@link #createResponseEntity},
 * instead of the default ProblemDetail. WebFlux also routes errors raised before a handler is
 * chosen here (no matching route: 404, wrong method: 405, wrong content type: 415).
 */
@RestControllerAdvice
public class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    @ExceptionHandler
    ResponseEntity<Object> notFound(NotFoundException ex) {
        return ErrorBody.response(HttpStatus.NOT_FOUND, ex.getMessage());
    }

    @ExceptionHandler
    ResponseEntity<Object> conflict(ConflictException ex) {
        return ErrorBody.response(HttpStatus.CONFLICT, ex.getMessage());
    }

    // A writer that lost a race with another past the services' duplicate lookup. Only unique
    // constraints can fail here: the input is validated before it reaches the database.
    @ExceptionHandler
    ResponseEntity<Object> constraintViolation(DataIntegrityViolationException ex) {
        return ErrorBody.response(HttpStatus.CONFLICT, "That value already exists");
    }

    // A client that closed its connection mid-request (reactor-netty's AbortedException and the
    // like) is neither a server error nor someone to answer: no ERROR log, no 500 on a response
    // that is already committed or has no channel left.
    @ExceptionHandler
    Mono<ResponseEntity<Object>> unexpected(Exception ex) {
        if (DisconnectedClientHelper.isClientDisconnectedException(ex)) {
            return Mono.empty();
        }
        log.error("Unhandled exception", ex);
        return Mono.just(ErrorBody.response(HttpStatus.INTERNAL_SERVER_ERROR, "Internal server error"));
    }

    @Override
    protected Mono<ResponseEntity<Object>> handleWebExchangeBindException(WebExchangeBindException ex,
            HttpHeaders headers, HttpStatusCode status, ServerWebExchange exchange) {
        String message = ex.getBindingResult().getFieldErrors().stream()
                .map(ApiExceptionHandler::describe)
                .sorted()
                .collect(Collectors.joining("; "));
        return Mono.just(ErrorBody.response(status, message, headers));
    }

    // An unreadable body (malformed JSON, wrong shape, none) is a 400; a path id that is not a
    // number, or does not fit in a long, cannot name a row: 404, not 400.
    @Override
    protected Mono<ResponseEntity<Object>> handleServerWebInputException(ServerWebInputException ex,
            HttpHeaders headers, HttpStatusCode status, ServerWebExchange exchange) {
        if (ex.getCause() instanceof TypeMismatchException) {
            return Mono.just(ErrorBody.response(HttpStatus.NOT_FOUND,
                    "Not found: " + exchange.getRequest().getPath(), headers));
        }
        return Mono.just(ErrorBody.response(status, "Malformed or missing JSON request body", headers));
    }

    // Every other WebFlux exception ends here with a ProblemDetail body; keep its status, headers
    // and detail message, and answer the contract's body instead.
    @Override
    protected Mono<ResponseEntity<Object>> createResponseEntity(@Nullable Object body, HttpHeaders headers,
            HttpStatusCode status, ServerWebExchange exchange) {
        HttpStatus known = HttpStatus.resolve(status.value());
        String message = body instanceof ProblemDetail problem && problem.getDetail() != null
                ? problem.getDetail()
                : known != null ? known.getReasonPhrase() : "Error";
        return Mono.just(ErrorBody.response(status, message, headers));
    }

    private static String describe(FieldError error) {
        return error.getField() + ": " + error.getDefaultMessage();
    }
}
