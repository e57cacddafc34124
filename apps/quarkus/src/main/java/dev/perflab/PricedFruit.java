package dev.perflab;

import java.util.ArrayList;
import java.util.List;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import org.hibernate.annotations.Immutable;
import org.hibernate.jpa.HibernateHints;

/**
 * A fruit with its prices per store: the fruits table again, read-only, with the lazy one-to-many
 * to its prices. A second entity rather than a collection on Fruit, so that /fruits keeps its
 * {"id","name"} answer and its SQL: Jackson writes every property of an entity it is given, and a
 * collection on Fruit would be loaded and written by /fruits too (see the README, "Fruit prices").
 */
@Entity
@Immutable
@Table(name = "fruits")
public class PricedFruit extends PanacheEntityBase {

    @Id
    public Long id;

    @Column(length = 40, nullable = false, unique = true)
    public String name;

    // Lazy, the default of a one-to-many: loaded when first read, here by the JSON writer.
    @OneToMany(mappedBy = "fruit")
    public List<StoreFruitPrice> storePrices = new ArrayList<>();

    public static PricedFruit findByName(String name) {
        return find("name", name).firstResult();
    }

    /** Every fruit with its prices and their stores in a single SQL query (left fetch joins). */
    public static List<PricedFruit> listWithStorePrices() {
        return find("from PricedFruit f"
                + " left join fetch f.storePrices p"
                + " left join fetch p.store"
                + " order by f.name")
                .withHint(HibernateHints.HINT_READ_ONLY, true)
                .list();
    }
}
