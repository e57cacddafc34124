package dev.perflab.springboot.price;

import java.io.Serializable;
import java.util.Objects;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

/** The composite key of a price: its store and its fruit. */
@Embeddable
public class StoreFruitPriceId implements Serializable {

    @Column(name = "store_id")
    private Long storeId;

    @Column(name = "fruit_id")
    private Long fruitId;

    protected StoreFruitPriceId() {
    }

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
