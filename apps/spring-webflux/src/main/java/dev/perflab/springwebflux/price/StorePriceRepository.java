package dev.perflab.springwebflux.price;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Repository;

import reactor.core.publisher.Mono;

/**
 * The prices per store. Spring Data R2DBC maps no associations, so the SQL is written here, through
 * DatabaseClient: one fruit's prices with their stores (the query a lazy one-to-many runs for one
 * fruit), and every fruit with its prices and stores in one query (the JPA apps' fetch join).
 */
@Repository
public class StorePriceRepository {

    private static final String PRICES_OF_FRUIT = """
            SELECT p.price, s.id AS store_id, s.name AS store_name, s.currency, s.address, s.city, s.country
            FROM store_fruit_prices p
            JOIN stores s ON s.id = p.store_id
            WHERE p.fruit_id = :fruitId""";

    // One row per fruit and price; a fruit sold nowhere has one row with NULL price and store.
    private static final String FRUITS_WITH_PRICES = """
            SELECT f.id, f.name, p.price, s.id AS store_id, s.name AS store_name, s.currency,
                   s.address, s.city, s.country
            FROM fruits f
            LEFT JOIN store_fruit_prices p ON p.fruit_id = f.id
            LEFT JOIN stores s ON s.id = p.store_id
            ORDER BY f.name""";

    private final DatabaseClient db;

    public StorePriceRepository(DatabaseClient db) {
        this.db = db;
    }

    public Mono<List<PricedFruit.StorePrice>> findByFruitId(long fruitId) {
        return db.sql(PRICES_OF_FRUIT)
                .bind("fruitId", fruitId)
                .fetch()
                .all()
                .map(StorePriceRepository::price)
                .collectList();
    }

    public Mono<List<PricedFruit>> findAllFruitsWithPrices() {
        return db.sql(FRUITS_WITH_PRICES)
                .fetch()
                .all()
                // Rows arrive ordered by fruit name, so insertion order is the contract's order.
                .collect(LinkedHashMap<Long, PricedFruit>::new, StorePriceRepository::add)
                .map(fruits -> List.copyOf(fruits.values()));
    }

    private static void add(Map<Long, PricedFruit> fruits, Map<String, Object> row) {
        PricedFruit fruit = fruits.computeIfAbsent((Long) row.get("id"),
                id -> new PricedFruit(id, (String) row.get("name"), new ArrayList<>()));
        if (row.get("store_id") != null) {
            fruit.storePrices().add(price(row));
        }
    }

    private static PricedFruit.StorePrice price(Map<String, Object> row) {
        return new PricedFruit.StorePrice((BigDecimal) row.get("price"), new PricedFruit.Store(
                (Long) row.get("store_id"), (String) row.get("store_name"), (String) row.get("currency"),
                new PricedFruit.Address((String) row.get("address"), (String) row.get("city"),
                        (String) row.get("country"))));
    }
}
