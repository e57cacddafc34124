package dev.perflab.helidon;

/** The contract's error body: {"status": 404, "error": "..."}. */
record ErrorBody(int status, String error) {
}
