package dev.perflab.springwebflux.data;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

public record DataRequest(@NotBlank @Size(max = 100) String data) {
}
