package dev.perflab;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** Request and response body of /data: {"data": key}. */
public record DataPayload(@NotBlank @Size(max = 100) String data) {
}
