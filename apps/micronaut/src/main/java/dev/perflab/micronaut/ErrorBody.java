package dev.perflab.micronaut;

import io.micronaut.serde.annotation.Serdeable;

/** The contract's error body: {"status": N, "error": "..."}. */
@Serdeable
public record ErrorBody(int status, String error) {
}
