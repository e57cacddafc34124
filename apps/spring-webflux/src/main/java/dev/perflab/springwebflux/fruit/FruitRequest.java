package dev.perflab.springwebflux.fruit;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** Body of POST and PUT /fruits: only the name is accepted from the client, never an id. */
public record FruitRequest(@NotBlank @Size(max = 40) String name) {
}
