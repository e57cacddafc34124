package dev.perflab.micronaut;

import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** The body of POST and PUT /fruits. */
@Serdeable
public record FruitRequest(@NotBlank @Size(max = 40) String name) {
}
