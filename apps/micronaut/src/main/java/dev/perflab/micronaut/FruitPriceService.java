package dev.perflab.micronaut;

import java.util.List;

import io.micronaut.http.HttpStatus;
import io.micronaut.http.exceptions.HttpStatusException;
import io.micronaut.transaction.annotation.ReadOnly;
import jakarta.inject.Singleton;

/**
 * Fruits with their prices. Reads run outside a transaction (one query in auto-commit), as every
 * other read of this app; the joined variant runs the same single query in a read-only transaction.
 */
@Singleton
public class FruitPriceService {

    private final PricedFruitRepository fruits;

    public FruitPriceService(PricedFruitRepository fruits) {
        this.fruits = fruits;
    }

    public List<PricedFruit> list() {
        return fruits.findAllOrderByName();
    }

    public PricedFruit get(String name) {
        return fruits.findByName(name)
                .orElseThrow(() -> new HttpStatusException(HttpStatus.NOT_FOUND, "Fruit '" + name + "' not found"));
    }

    @ReadOnly
    public List<PricedFruit> listJoined() {
        return fruits.findAllOrderByName();
    }
}
