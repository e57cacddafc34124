package dev.perflab.thorntail;

import java.util.ArrayList;
import java.util.List;

import javax.persistence.Entity;
import javax.persistence.Id;
import javax.persistence.NamedQueries;
import javax.persistence.NamedQuery;
import javax.persistence.OneToMany;
import javax.persistence.Table;

/**
 * A fruit with its prices per store: a read-only view of the fruits table beside Fruit, so that
 * /fruits keeps its {"id","name"} body and its single query (see README.md, "Fruit prices").
 * The prices are a lazy one-to-many, JPA's default for a collection.
 */
@Entity
@Table(name = "fruits")
@NamedQueries({
        @NamedQuery(name = PricedFruit.ALL, query = "select f from PricedFruit f order by f.name"),
        @NamedQuery(name = PricedFruit.BY_NAME, query = "select f from PricedFruit f where f.name = :name"),
        // Every fruit with its prices and their stores in a single SQL query (left joins: a fruit
        // sold nowhere is listed too).
        @NamedQuery(name = PricedFruit.ALL_WITH_PRICES,
                query = "select distinct f from PricedFruit f"
                        + " left join fetch f.storePrices p"
                        + " left join fetch p.store"
                        + " order by f.name")
})
public class PricedFruit {

    public static final String ALL = "PricedFruit.all";
    public static final String BY_NAME = "PricedFruit.byName";
    public static final String ALL_WITH_PRICES = "PricedFruit.allWithPrices";

    @Id
    private Long id;

    private String name;

    @OneToMany(mappedBy = "fruit")
    private List<StoreFruitPrice> storePrices = new ArrayList<>();

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public List<StoreFruitPrice> getStorePrices() {
        return storePrices;
    }
}
