package dev.perflab.reactive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * /fruit-prices-joined, non-blocking: the fruits, their prices and the stores in one query (left
 * joins, as the imperative fetch join), folded into the nested JSON. One statement, so PostgreSQL
 * runs it in one transaction of its own; no explicit BEGIN/COMMIT around it.
 */
@Path("/reactive/fruit-prices-joined")
@Produces(MediaType.APPLICATION_JSON)
public class ReactiveFruitPriceJoinedResource {

    // One row per fruit and price; a fruit sold nowhere has one row with NULL price and store.
    private static final String FRUITS_WITH_PRICES = """
            SELECT f.id, f.name, p.price, s.id AS store_id, s.name AS store_name, s.currency,
                   s.address, s.city, s.country
            FROM fruits f
            LEFT JOIN store_fruit_prices p ON p.fruit_id = f.id
            LEFT JOIN stores s ON s.id = p.store_id
            ORDER BY f.name""";

    @Inject
    Pool client;

    @GET
    public Uni<List<PricedFruitJson>> list() {
        return client.query(FRUITS_WITH_PRICES).execute().map(rows -> {
            // Rows arrive ordered by fruit name, so insertion order is the contract's order.
            Map<Long, PricedFruitJson> fruits = new LinkedHashMap<>();
            for (Row row : rows) {
                PricedFruitJson fruit = fruits.computeIfAbsent(row.getLong("id"),
                        id -> new PricedFruitJson(id, row.getString("name"), new ArrayList<>()));
                if (row.getValue("store_id") != null) {
                    fruit.storePrices().add(PricedFruitJson.StorePrice.of(row));
                }
            }
            return List.copyOf(fruits.values());
        });
    }
}
