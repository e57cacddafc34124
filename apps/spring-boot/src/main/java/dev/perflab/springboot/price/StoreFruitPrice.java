package dev.perflab.springboot.price;

import java.math.BigDecimal;

import jakarta.persistence.Column;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.MapsId;
import jakarta.persistence.Table;

/**
 * A fruit's price in one store. The store is a plain (eager) many-to-one, so it comes with the
 * price; the fruit is the lazy owning side of {@link PricedFruit#getStorePrices()}. The JSON has the
 * properties that have a getter: the price and the store (the key and the fruit have none).
 */
@Entity
@Table(name = "store_fruit_prices")
public class StoreFruitPrice {

    @EmbeddedId
    private StoreFruitPriceId id;

    @MapsId("storeId")
    @ManyToOne(optional = false)
    @JoinColumn(name = "store_id")
    private Store store;

    @MapsId("fruitId")
    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "fruit_id")
    private PricedFruit fruit;

    @Column(name = "price", nullable = false, precision = 10, scale = 2)
    private BigDecimal price;

    protected StoreFruitPrice() {
    }

    public BigDecimal getPrice() {
        return price;
    }

    public Store getStore() {
        return store;
    }
}
