package dev.perflab.reactive;

import java.util.ArrayList;
import java.util.List;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.jboss.resteasy.reactive.RestPath;

/**
 * Fruits with their prices per store, non-blocking. The reactive client has no entities and so no
 * lazy loading: the fruits are read first, then each fruit's prices with their stores, one query per
 * fruit, one after the other (what a lazily loaded one-to-many does without batching). Every query
 * runs on its own, without a transaction. The one-query variant is ReactiveFruitPriceJoinedResource.
 */
@Path("/reactive/fruit-prices")
@Produces(MediaType.APPLICATION_JSON)
public class ReactiveFruitPriceResource {

    private static final String PRICES_OF_FRUIT = """
            SELECT p.price, s.id AS store_id, s.name AS store_name, s.currency, s.address, s.city, s.country
            FROM store_fruit_prices p
            JOIN stores s ON s.id = p.store_id
            WHERE p.fruit_id = $1""";

    @Inject
    Pool client;

    @GET
    public Uni<List<PricedFruitJson>> list() {
        return client.query("SELECT id, name FROM fruits ORDER BY name").execute()
                .onItem().transformToMulti(rows -> Multi.createFrom().iterable(rows))
                .onItem().transformToUniAndConcatenate(this::withPrices)
                .collect().asList();
    }

    @GET
    @Path("{name}")
    public Uni<PricedFruitJson> get(@RestPath String name) {
        return client.preparedQuery("SELECT id, name FROM fruits WHERE name = $1").execute(Tuple.of(name))
                .chain(rows -> {
                    if (rows.size() == 0) {
                        throw new NotFoundException("Fruit '" + name + "' not found");
                    }
                    return withPrices(rows.iterator().next());
                });
    }

    private Uni<PricedFruitJson> withPrices(Row fruit) {
        long id = fruit.getLong("id");
        String name = fruit.getString("name");
        return client.preparedQuery(PRICES_OF_FRUIT).execute(Tuple.of(id))
                .map(rows -> new PricedFruitJson(id, name, prices(rows)));
    }

    private static List<PricedFruitJson.StorePrice> prices(RowSet<Row> rows) {
        List<PricedFruitJson.StorePrice> prices = new ArrayList<>(rows.size());
        for (Row row : rows) {
            prices.add(PricedFruitJson.StorePrice.of(row));
        }
        return prices;
    }
}
