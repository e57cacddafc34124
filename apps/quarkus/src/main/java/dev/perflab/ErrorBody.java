package dev.perflab;

/** The contract's error body: {"status": N, "error": "..."}. */
public record ErrorBody(int status, String error) {
}
