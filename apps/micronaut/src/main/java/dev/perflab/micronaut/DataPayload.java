package dev.perflab.micronaut;

import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** The body of POST /data and of its answers: {"data": key}. */
@Serdeable
public record DataPayload(@NotBlank @Size(max = 100) String data) {
}
