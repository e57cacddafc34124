package dev.perflab;

import java.math.BigDecimal;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
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
 * price; the fruit is the lazy owning side of PricedFruit.storePrices and stays out of the JSON,
 * as does the key, which only repeats the two ids.
 */
@Entity
@Table(name = "store_fruit_prices")
public class StoreFruitPrice extends PanacheEntityBase {

    @JsonIgnore
    @EmbeddedId
    public StoreFruitPriceId id;

    @MapsId("storeId")
    @ManyToOne(optional = false)
    @JoinColumn(name = "store_id")
    public Store store;

    @JsonIgnore
    @MapsId("fruitId")
    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "fruit_id")
    public PricedFruit fruit;

    @Column(precision = 10, scale = 2, nullable = false)
    public BigDecimal price;
}
