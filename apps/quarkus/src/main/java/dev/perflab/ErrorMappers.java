package dev.perflab;

import java.util.stream.Collectors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.validation.Path;
import jakarta.ws.rs.ClientErrorException;
import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Turns every failure of a resource method into the contract's JSON error body.
 * These mappers replace the built-in ones of Quarkus REST, Jackson and Hibernate Validator,
 * whose bodies have other shapes.
 */
public class ErrorMappers {

    private static final Logger LOG = Logger.getLogger(ErrorMappers.class);
    private static final String MALFORMED_JSON = "Malformed JSON body";

    @ServerExceptionMapper
    public RestResponse<ErrorBody> invalid(ConstraintViolationException e) {
        String message = e.getConstraintViolations().stream()
                .map(v -> property(v) + " " + v.getMessage())
                .sorted()
                .collect(Collectors.joining(", "));
        return error(Response.Status.BAD_REQUEST, message);
    }

    // A body of the wrong shape (e.g. an array, or an object for the name). Mapped by its exact type
    // to replace the built-in mapper of quarkus-rest-jackson, which answers with another body.
    @ServerExceptionMapper
    public RestResponse<ErrorBody> mismatchedJson(MismatchedInputException e) {
        return error(Response.Status.BAD_REQUEST, MALFORMED_JSON);
    }

    // Content negotiation failures (415, 406): the framework's messages name annotations.
    @ServerExceptionMapper({NotSupportedException.class, NotAcceptableException.class})
    public RestResponse<ErrorBody> negotiation(ClientErrorException e) {
        return error(e.getResponse().getStatusInfo(), e.getResponse().getStatusInfo().getReasonPhrase());
    }

    @ServerExceptionMapper
    public RestResponse<ErrorBody> duplicate(DuplicateException e) {
        return error(Response.Status.CONFLICT, e.getMessage());
    }

    // A concurrent insert can still win the race past the lookup: the unique constraint decides.
    @ServerExceptionMapper
    public RestResponse<ErrorBody> constraint(org.hibernate.exception.ConstraintViolationException e) {
        if (e.getKind() == org.hibernate.exception.ConstraintViolationException.ConstraintKind.UNIQUE) {
            return error(Response.Status.CONFLICT, "Duplicate value");
        }
        return unexpected(e);
    }

    // NotFound, NotAllowed, BadRequest...
    @ServerExceptionMapper
    public RestResponse<ErrorBody> web(WebApplicationException e) {
        Response.StatusType status = e.getResponse().getStatusInfo();
        String message;
        if (e.getCause() instanceof JsonProcessingException) {
            // Unparsable JSON: the body reader raises a 400 with the parser's error as cause.
            message = MALFORMED_JSON;
        } else if (e.getMessage() == null || e.getMessage().startsWith("HTTP " + status.getStatusCode())) {
            // Raised by the framework itself, with only "HTTP 404 Not Found" as message.
            message = status.getReasonPhrase();
        } else {
            message = e.getMessage();
        }
        return error(status, message);
    }

    @ServerExceptionMapper
    public RestResponse<ErrorBody> unexpected(Exception e) {
        LOG.error("Unexpected failure", e);
        return error(Response.Status.INTERNAL_SERVER_ERROR, "Internal Server Error");
    }

    private static RestResponse<ErrorBody> error(Response.StatusType status, String message) {
        return RestResponse.ResponseBuilder
                .create(status, new ErrorBody(status.getStatusCode(), message))
                .type(MediaType.APPLICATION_JSON)
                .build();
    }

    private static String property(ConstraintViolation<?> violation) {
        String name = null;
        for (Path.Node node : violation.getPropertyPath()) {
            name = node.getName();
        }
        return name;
    }
}
