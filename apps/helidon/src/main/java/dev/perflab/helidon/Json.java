package dev.perflab.helidon;

import java.util.Optional;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Reads a JSON object body, answering the contract's 415 and 400 itself. */
final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    static JsonNode object(ServerRequest req) {
        Optional<String> contentType = req.headers().first(HeaderNames.CONTENT_TYPE);
        String mediaType = contentType.map(v -> v.split(";", 2)[0].trim()).orElse("");
        if (!mediaType.equalsIgnoreCase("application/json")) {
            throw new ApiException(Status.UNSUPPORTED_MEDIA_TYPE_415,
                    "the body must be application/json, not " + (mediaType.isEmpty() ? "missing" : mediaType));
        }
        // A request without a body (Content-Length: 0) has no entity, and reading one would throw
        // IllegalStateException: a 500 for what is the client's error.
        if (!req.content().hasEntity()) {
            throw ApiException.badRequest("a JSON body is required");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(req.content().as(String.class));
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest("malformed JSON body");
        }
        if (node == null || !node.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object");
        }
        return node;
    }

    /** A required, non-blank string field of at most max characters (code points). */
    static String text(JsonNode body, String field, int max) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            throw ApiException.badRequest(field + " is required");
        }
        if (!value.isTextual()) {
            throw ApiException.badRequest(field + " must be a string");
        }
        String text = value.asText();
        if (text.isBlank()) {
            throw ApiException.badRequest(field + " must not be blank");
        }
        if (text.codePointCount(0, text.length()) > max) {
            throw ApiException.badRequest(field + " must be at most " + max + " characters");
        }
        return text;
    }
}
