package dev.perflab.springwebflux.web;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
// Spring Boot 3.x line: Boot 3 packages and Jackson 2 (Boot 4: boot.webflux.error and Jackson 3's JsonMapper).
import org.springframework.boot.web.reactive.error.ErrorWebExceptionHandler;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.DisconnectedClientHelper;

import com.fasterxml.jackson.databind.ObjectMapper;

import reactor.core.publisher.Mono;

/**
 * Replaces Spring Boot's DefaultErrorWebExceptionHandler ({"timestamp","path",...}) for errors
 * that reach no controller advice: those raised by web filters (see HealthPaths) or by the
 * server itself. Same JSON body as ApiExceptionHandler.
 */
@Component
@Order(-2)
public class JsonErrorWebExceptionHandler implements ErrorWebExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(JsonErrorWebExceptionHandler.class);

    private final ObjectMapper json;

    public JsonErrorWebExceptionHandler(ObjectMapper json) {
        this.json = json;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        ServerHttpResponse response = exchange.getResponse();
        // Nothing to write once the response has started or the client has gone: Spring's
        // HttpWebHandlerAdapter logs a client that went away at DEBUG, not as an error.
        if (response.isCommitted() || DisconnectedClientHelper.isClientDisconnectedException(ex)) {
            return Mono.error(ex);
        }
        HttpStatusCode status = ex instanceof ResponseStatusException rse
                ? rse.getStatusCode()
                : HttpStatus.INTERNAL_SERVER_ERROR;
        if (status.is5xxServerError()) {
            log.error("Unhandled exception", ex);
        }
        HttpStatus known = HttpStatus.resolve(status.value());
        ErrorBody body = new ErrorBody(status.value(), known != null ? known.getReasonPhrase() : "Error");
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        // Jackson 2 throws a checked exception: fromCallable, not fromSupplier as on Jackson 3.
        return response.writeWith(Mono.fromCallable(() -> response.bufferFactory().wrap(json.writeValueAsBytes(body))));
    }
}
