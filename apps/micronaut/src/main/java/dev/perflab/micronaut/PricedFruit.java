package dev.perflab.micronaut;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.Relation;
import io.micronaut.serde.annotation.Serdeable;

/**
 * A fruit with its prices per store: a read-only mapping of the fruits table beside Fruit, so that
 * /fruits keeps its {"id","name"} body and its query (see README.md, "Fruit prices").
 */
@Serdeable
@MappedEntity("fruits")
public record PricedFruit(
        @Id Long id,
        String name,
        @Relation(value = Relation.Kind.ONE_TO_MANY, mappedBy = "fruit")
        // Serde leaves empty collections out by default; the contract always has the key.
        @JsonInclude(JsonInclude.Include.ALWAYS) List<StoreFruitPrice> storePrices) {

    /** A fruit read without its prices, or sold nowhere, has an empty list. */
    public PricedFruit {
        storePrices = storePrices == null ? List.of() : storePrices;
    }
}
