package dev.perflab.springboot.web;

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
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Turns every exception into the contract's JSON error body.
 *
 * <p>Extending {@link ResponseEntityExceptionHandler} keeps Spring MVC's own status codes and
 * headers (405 with Allow, 415 with Accept, 404 for unknown routes); only the body is replaced,
 * in {@link #createResponseEntity}, instead of the default ProblemDetail.
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

    @ExceptionHandler
    ResponseEntity<Object> unexpected(Exception ex) {
        log.error("Unhandled exception", ex);
        return ErrorBody.response(HttpStatus.INTERNAL_SERVER_ERROR, "Internal server error");
    }

    @Override
    protected ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        String message = ex.getBindingResult().getFieldErrors().stream()
                .map(ApiExceptionHandler::describe)
                .sorted()
                .collect(Collectors.joining("; "));
        return ErrorBody.response(status, message, headers);
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        return ErrorBody.response(status, "Malformed or missing JSON request body", headers);
    }

    // A path id that is not a number, or does not fit in a long, cannot name a row: 404, not 400.
    @Override
    protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        return ErrorBody.response(HttpStatus.NOT_FOUND, "Not found: " + path(request), headers);
    }

    // Every Spring MVC exception ends here with a ProblemDetail body; keep its status, headers
    // and detail message, and answer the contract's body instead.
    @Override
    protected ResponseEntity<Object> createResponseEntity(@Nullable Object body, HttpHeaders headers,
            HttpStatusCode status, WebRequest request) {
        HttpStatus known = HttpStatus.resolve(status.value());
        String message = body instanceof ProblemDetail problem && problem.getDetail() != null
                ? problem.getDetail()
                : known != null ? known.getReasonPhrase() : "Error";
        return ErrorBody.response(status, message, headers);
    }

    private static String describe(FieldError error) {
        return error.getField() + ": " + error.getDefaultMessage();
    }

    private static String path(WebRequest request) {
        return request instanceof ServletWebRequest servlet
                ? servlet.getRequest().getRequestURI()
                : request.getDescription(false);
    }
}
