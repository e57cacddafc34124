package dev.perflab.springboot.price;

import java.util.ArrayList;
import java.util.List;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;

import org.hibernate.annotations.Immutable;

/**
 * A fruit with its prices per store: the fruits table again, read-only, with the lazy one-to-many
 * to its prices. A second entity rather than a collection on {@code Fruit}, so that /fruits keeps its
 * {"id","name"} answer and its SQL: Jackson writes every property that has a getter, and a collection
 * on Fruit would be loaded and written by /fruits too (see the README, "Fruit prices").
 */
@Entity
@Immutable
@Table(name = "fruits")
public class PricedFruit {

    @Id
    private Long id;

    @Column(name = "name", nullable = false, unique = true, length = 40)
    private String name;

    // Lazy, the default of a one-to-many: loaded when first read, here by the JSON writer.
    @OneToMany(mappedBy = "fruit")
    private List<StoreFruitPrice> storePrices = new ArrayList<>();

    protected PricedFruit() {
    }

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
