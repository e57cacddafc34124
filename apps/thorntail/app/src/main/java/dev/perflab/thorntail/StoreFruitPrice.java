package dev.perflab.thorntail;

import java.math.BigDecimal;

import javax.persistence.Column;
import javax.persistence.EmbeddedId;
import javax.persistence.Entity;
import javax.persistence.FetchType;
import javax.persistence.JoinColumn;
import javax.persistence.ManyToOne;
import javax.persistence.MapsId;
import javax.persistence.Table;

/**
 * A fruit's price in one store. The JSON is {"price", "store"}: the key and the fruit it belongs to
 * have no getters, so Jackson writes neither (the fruit would lead back to its prices).
 */
@Entity
@Table(name = "store_fruit_prices")
public class StoreFruitPrice {

    @EmbeddedId
    private StoreFruitPriceId id;

    // JPA's default fetch for a many-to-one: the store is loaded with the price.
    @MapsId("storeId")
    @ManyToOne(optional = false)
    @JoinColumn(name = "store_id")
    private Store store;

    @MapsId("fruitId")
    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "fruit_id")
    private PricedFruit fruit;

    @Column(precision = 10, scale = 2, nullable = false)
    private BigDecimal price;

    public BigDecimal getPrice() {
        return price;
    }

    public Store getStore() {
        return store;
    }
}
