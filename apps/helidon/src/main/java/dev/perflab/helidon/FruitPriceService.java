package dev.perflab.helidon;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * /fruit-prices and /fruit-prices/{name}: the fruits, then their prices with the stores in a second
 * query (two statements on one connection in auto-commit, as this app's other reads). Registered a
 * second time for /fruit-prices-joined ({@link #joinedRouting}): the same body from one query with
 * left joins, in one read-only transaction.
 */
final class FruitPriceService implements HttpService {

    private static final String FRUITS = "SELECT id, name FROM fruits ORDER BY name";

    private static final String FRUIT_BY_NAME = "SELECT id, name FROM fruits WHERE name = ?";

    private static final String PRICES = """
            SELECT p.fruit_id, p.price, s.id, s.name, s.currency, s.address, s.city, s.country
            FROM store_fruit_prices p
            JOIN stores s ON s.id = p.store_id
            WHERE p.fruit_id = ANY (?)""";

    private static final String JOINED = """
            SELECT f.id, f.name, p.price, s.id, s.name, s.currency, s.address, s.city, s.country
            FROM fruits f
            LEFT JOIN store_fruit_prices p ON p.fruit_id = f.id
            LEFT JOIN stores s ON s.id = p.store_id
            ORDER BY f.name""";

    private final DataSource dataSource;

    FruitPriceService(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list)
                .any("/", Errors::methodNotAllowed)
                .get("/{name}", this::get)
                .any("/{name}", Errors::methodNotAllowed);
    }

    /** The routes of /fruit-prices-joined. */
    void joinedRouting(HttpRules rules) {
        rules.get("/", this::listJoined)
                .any("/", Errors::methodNotAllowed);
    }

    private void list(ServerRequest req, ServerResponse res) {
        List<PricedFruit> fruits = Database.read(dataSource, c -> {
            List<Fruit> rows = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(FRUITS); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Fruit(rs.getLong(1), rs.getString(2)));
                }
            }
            return withPrices(c, rows);
        });
        res.send(fruits);
    }

    private void get(ServerRequest req, ServerResponse res) {
        String name = req.path().pathParameters().get("name");
        PricedFruit fruit = Database.read(dataSource, c -> {
            Fruit found;
            try (PreparedStatement ps = c.prepareStatement(FRUIT_BY_NAME)) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return null;
                    }
                    found = new Fruit(rs.getLong(1), rs.getString(2));
                }
            }
            return withPrices(c, List.of(found)).getFirst();
        });
        if (fruit == null) {
            throw ApiException.notFound("no fruit named " + name);
        }
        res.send(fruit);
    }

    /** The prices of these fruits, with their stores, in one query; a fruit sold nowhere gets none. */
    private static List<PricedFruit> withPrices(Connection c, List<Fruit> fruits) throws SQLException {
        Map<Long, List<PricedFruit.StorePrice>> prices = new HashMap<>();
        for (Fruit fruit : fruits) {
            prices.put(fruit.id(), new ArrayList<>());
        }
        if (!fruits.isEmpty()) {
            Array ids = c.createArrayOf("bigint", prices.keySet().toArray(new Long[0]));
            try (PreparedStatement ps = c.prepareStatement(PRICES)) {
                ps.setArray(1, ids);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        List<PricedFruit.StorePrice> ofFruit = prices.get(rs.getLong(1));
                        if (ofFruit != null) {
                            ofFruit.add(new PricedFruit.StorePrice(rs.getBigDecimal(2), store(rs, 3)));
                        }
                    }
                }
            } finally {
                ids.free();
            }
        }
        List<PricedFruit> result = new ArrayList<>(fruits.size());
        for (Fruit fruit : fruits) {
            result.add(new PricedFruit(fruit.id(), fruit.name(), prices.get(fruit.id())));
        }
        return result;
    }

    private void listJoined(ServerRequest req, ServerResponse res) {
        List<PricedFruit> fruits = Database.inReadOnlyTransaction(dataSource, c -> {
            try (PreparedStatement ps = c.prepareStatement(JOINED); ResultSet rs = ps.executeQuery()) {
                // A fruit's rows are adjacent (ORDER BY its unique name); a fruit sold nowhere has
                // one row without a price.
                Map<Long, PricedFruit> byId = new LinkedHashMap<>();
                while (rs.next()) {
                    long id = rs.getLong(1);
                    PricedFruit fruit = byId.get(id);
                    if (fruit == null) {
                        fruit = new PricedFruit(id, rs.getString(2), new ArrayList<>());
                        byId.put(id, fruit);
                    }
                    if (rs.getBigDecimal(3) != null) {
                        fruit.storePrices().add(new PricedFruit.StorePrice(rs.getBigDecimal(3), store(rs, 4)));
                    }
                }
                return new ArrayList<>(byId.values());
            }
        });
        res.send(fruits);
    }

    /** The store in the columns from {@code first} on: id, name, currency, address, city, country. */
    private static PricedFruit.Store store(ResultSet rs, int first) throws SQLException {
        return new PricedFruit.Store(rs.getLong(first), rs.getString(first + 1), rs.getString(first + 2),
                new PricedFruit.Address(rs.getString(first + 3), rs.getString(first + 4), rs.getString(first + 5)));
    }
}
