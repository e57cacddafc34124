package dev.perflab.helidon;

import java.nio.charset.StandardCharsets;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.RequestException;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.Status;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/** Routing error handlers: every error is a JSON body, a client error never a 500. */
final class Errors {

    private static final Logger LOGGER = Logger.getLogger(Errors.class.getName());

    private Errors() {
    }

    static void register(HttpRouting.Builder routing) {
        routing.error(ApiException.class, (req, res, e) -> send(res, e.status(), e.getMessage()))
                .error(RequestException.class, (req, res, e) -> send(res, e.status(), e.getMessage()))
                .error(Database.DatabaseException.class, (req, res, e) -> {
                    LOGGER.log(Level.WARNING, "database error", e);
                    send(res, Status.SERVICE_UNAVAILABLE_503, "database unavailable");
                })
                .error(Exception.class, (req, res, e) -> {
                    LOGGER.log(Level.SEVERE, "unexpected error", e);
                    send(res, Status.INTERNAL_SERVER_ERROR_500, "internal error");
                });
    }

    static void send(ServerResponse res, Status status, String message) {
        res.status(status);
        res.headers().set(HeaderNames.CONTENT_TYPE, "application/json");
        res.send(new ErrorBody(status.code(), message == null || message.isBlank() ? status.reasonPhrase() : message));
    }

    /**
     * Errors the server answers before routing (an oversize body: 413, a malformed request line or
     * header: 400): the same JSON body, through Helidon's direct handlers.
     */
    static void directHandlers(DirectHandlers.Builder handlers) {
        for (DirectHandler.EventType type : DirectHandler.EventType.values()) {
            handlers.addHandler(type, Errors::direct);
        }
    }

    private static DirectHandler.TransportResponse direct(DirectHandler.TransportRequest request,
                                                          DirectHandler.EventType type,
                                                          Status status,
                                                          ServerResponseHeaders headers,
                                                          String message) {
        String text = message == null || message.isBlank() ? status.reasonPhrase() : message;
        String body = "{\"status\":" + status.code() + ",\"error\":\"" + escape(text) + "\"}";
        headers.set(HeaderNames.CONTENT_TYPE, "application/json");
        return DirectHandler.TransportResponse.builder()
                .status(status)
                .headers(headers)
                .keepAlive(type.keepAlive())
                .entity(body.getBytes(StandardCharsets.UTF_8))
                .build();
    }

    private static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(' ');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The last route: any path no service answers. */
    static void notFound(ServerRequest req, ServerResponse res) {
        send(res, Status.NOT_FOUND_404, "no route for " + req.path().path());
    }

    /** Registered after a path's own methods: the path exists, the method does not. */
    static void methodNotAllowed(ServerRequest req, ServerResponse res) {
        send(res, Status.METHOD_NOT_ALLOWED_405, req.prologue().method().text() + " not allowed on " + req.path().path());
    }
}
