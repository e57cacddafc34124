package dev.perflab.micronaut;

import io.micronaut.data.annotation.Embeddable;
import io.micronaut.data.annotation.MappedProperty;
import io.micronaut.serde.annotation.Serdeable;

/** The key of a price: the store_id and fruit_id columns. */
@Serdeable
@Embeddable
public record StoreFruitPriceId(
        @MappedProperty("store_id") Long storeId,
        @MappedProperty("fruit_id") Long fruitId) {
}
