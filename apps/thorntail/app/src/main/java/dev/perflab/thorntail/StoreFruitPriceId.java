package dev.perflab.thorntail;

import java.io.Serializable;
import java.util.Objects;

import javax.persistence.Embeddable;

/** The key of a price: its store and its fruit (the columns come from StoreFruitPrice's @MapsId). */
@Embeddable
public class StoreFruitPriceId implements Serializable {

    private static final long serialVersionUID = 1L;

    private Long storeId;

    private Long fruitId;

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof StoreFruitPriceId)) {
            return false;
        }
        StoreFruitPriceId other = (StoreFruitPriceId) o;
        return Objects.equals(storeId, other.storeId) && Objects.equals(fruitId, other.fruitId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(storeId, fruitId);
    }
}
