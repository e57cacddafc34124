package dev.perflab.micronaut;

import java.math.BigDecimal;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.EmbeddedId;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.Relation;
import io.micronaut.serde.annotation.Serdeable;

/**
 * A fruit's price in one store. The JSON is {"price", "store"}: the key and the fruit (the owner of
 * the one-to-many, which would lead back to its prices) are left out.
 */
@Serdeable
@MappedEntity("store_fruit_prices")
public record StoreFruitPrice(
        @JsonIgnore @EmbeddedId StoreFruitPriceId id,
        BigDecimal price,
        @Relation(Relation.Kind.MANY_TO_ONE) Store store,
        @JsonIgnore @Nullable @Relation(Relation.Kind.MANY_TO_ONE) PricedFruit fruit) {
}
