package dev.perflab.thorntail;

import java.sql.SQLException;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import javax.persistence.PersistenceException;
import javax.validation.ConstraintViolation;
import javax.validation.ConstraintViolationException;
import javax.validation.Path;
import javax.ws.rs.WebApplicationException;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.Response;
import javax.ws.rs.ext.ExceptionMapper;
import javax.ws.rs.ext.Provider;

import com.fasterxml.jackson.core.JsonProcessingException;

/**
 * Turns every failure of a request into the contract's JSON error body. These mappers replace
 * RESTEasy's built-in answers (plain text, or its own violation report).
 */
public final class ErrorMappers {

    private static final String MALFORMED_JSON = "Malformed JSON body";
    // PostgreSQL's SQLSTATE for unique_violation.
    private static final String UNIQUE_VIOLATION = "23505";

    private ErrorMappers() {
    }

    /** NotFound, NotAllowed, NotSupported (415), BadRequest...: keep the status and its headers. */
    @Provider
    public static class WebApplication implements ExceptionMapper<WebApplicationException> {

        @Override
        public Response toResponse(WebApplicationException e) {
            Response original = e.getResponse();
            Response.StatusType status = original.getStatusInfo();
            String message = e.getMessage();
            if (e.getCause() instanceof JsonProcessingException) {
                message = MALFORMED_JSON;
            } else if (message == null || message.startsWith("HTTP " + status.getStatusCode())
                    || message.startsWith("RESTEASY")) {
                // Raised by the framework itself ("HTTP 404 Not Found", "RESTEASY003210: ..."):
                // its wording names internals, the reason phrase says it plainly.
                message = status.getReasonPhrase();
            }
            Response.ResponseBuilder response = ErrorBody.response(status, message);
            // 405 names the allowed methods.
            String allow = original.getHeaderString(HttpHeaders.ALLOW);
            if (allow != null) {
                response.header(HttpHeaders.ALLOW, allow);
            }
            return response.build();
        }
    }

    /** Bean Validation of a request body: 400 naming each invalid property. */
    @Provider
    public static class Validation implements ExceptionMapper<ConstraintViolationException> {

        @Override
        public Response toResponse(ConstraintViolationException e) {
            String message = e.getConstraintViolations().stream()
                    .map(v -> property(v) + " " + v.getMessage())
                    .sorted()
                    .collect(Collectors.joining(", "));
            return ErrorBody.response(Response.Status.BAD_REQUEST, message).build();
        }

        private static String property(ConstraintViolation<?> violation) {
            String name = null;
            for (Path.Node node : violation.getPropertyPath()) {
                name = node.getName();
            }
            return name;
        }
    }

    @Provider
    public static class Duplicate implements ExceptionMapper<DuplicateException> {

        @Override
        public Response toResponse(DuplicateException e) {
            return ErrorBody.response(Response.Status.CONFLICT, e.getMessage()).build();
        }
    }

    /** A concurrent insert can still win the race past the lookup: the unique constraint decides. */
    @Provider
    public static class Persistence implements ExceptionMapper<PersistenceException> {

        @Override
        public Response toResponse(PersistenceException e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof SQLException && UNIQUE_VIOLATION.equals(((SQLException) cause).getSQLState())) {
                    return ErrorBody.response(Response.Status.CONFLICT, "Duplicate value").build();
                }
            }
            return Unexpected.internalError(e);
        }
    }

    /**
     * Anything else. RESTEasy wraps a body its JSON reader cannot parse or bind in its own
     * ReaderException, which reaches this mapper with Jackson's error as the cause: a client error.
     */
    @Provider
    public static class Unexpected implements ExceptionMapper<Exception> {

        private static final Logger LOG = Logger.getLogger(ErrorMappers.class.getName());

        @Override
        public Response toResponse(Exception e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof JsonProcessingException) {
                    return ErrorBody.response(Response.Status.BAD_REQUEST, MALFORMED_JSON).build();
                }
            }
            return internalError(e);
        }

        static Response internalError(Exception e) {
            LOG.log(Level.SEVERE, "Unexpected failure", e);
            return ErrorBody.response(Response.Status.INTERNAL_SERVER_ERROR, "Internal Server Error").build();
        }
    }
}
