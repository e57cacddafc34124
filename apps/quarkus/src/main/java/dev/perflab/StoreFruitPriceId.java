package dev.perflab;

import java.io.Serializable;
import java.util.Objects;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

/** The composite key of a price: its store and its fruit. */
@Embeddable
public class StoreFruitPriceId implements Serializable {

    @Column(name = "store_id")
    public Long storeId;

    @Column(name = "fruit_id")
    public Long fruitId;

    @Override
    public boolean equals(Object other) {
        return other instanceof StoreFruitPriceId that
                && Objects.equals(storeId, that.storeId)
                && Objects.equals(fruitId, that.fruitId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(storeId, fruitId);
    }
}
