package dev.perflab.micronaut;

import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.serde.annotation.Serdeable;

/** A row of fruits; the id is the BIGSERIAL column's. */
@Serdeable
@MappedEntity("fruits")
public record Fruit(@Id @GeneratedValue Long id, String name) {
}
