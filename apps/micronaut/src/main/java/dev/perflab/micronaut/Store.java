package dev.perflab.micronaut;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.Relation;
import io.micronaut.serde.annotation.Serdeable;

@Serdeable
@MappedEntity("stores")
public record Store(
        @Id Long id,
        String name,
        String currency,
        @Relation(Relation.Kind.EMBEDDED) Address address) {
}
