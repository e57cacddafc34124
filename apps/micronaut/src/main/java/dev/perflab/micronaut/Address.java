package dev.perflab.micronaut;

import io.micronaut.data.annotation.Embeddable;
import io.micronaut.data.annotation.MappedProperty;
import io.micronaut.serde.annotation.Serdeable;

/** A store's address: columns of the stores table, embedded in Store (named as they are, no prefix). */
@Serdeable
@Embeddable
public record Address(
        @MappedProperty("address") String address,
        @MappedProperty("city") String city,
        @MappedProperty("country") String country) {
}
