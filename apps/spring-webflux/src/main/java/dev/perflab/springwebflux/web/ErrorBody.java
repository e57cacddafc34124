package dev.perflab.springwebflux.web;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/** The contract's error body: {"status": N, "error": "human message"}. */
public record ErrorBody(int status, String error) {

    static ResponseEntity<Object> response(HttpStatusCode status, String error) {
        return response(status, error, HttpHeaders.EMPTY);
    }

    // The content type is set explicitly so the body is JSON whatever the request's Accept header.
    static ResponseEntity<Object> response(HttpStatusCode status, String error, HttpHeaders headers) {
        return ResponseEntity.status(status)
                .headers(headers)
                .contentType(MediaType.APPLICATION_JSON)
                .body(new ErrorBody(status.value(), error));
    }
}
