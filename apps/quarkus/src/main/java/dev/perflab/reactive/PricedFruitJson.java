package dev.perflab.reactive;

import java.math.BigDecimal;
import java.util.List;

import io.vertx.mutiny.sqlclient.Row;

/** A fruit with its prices per store, as the contract writes it; the reactive client maps no entities. */
public record PricedFruitJson(long id, String name, List<StorePrice> storePrices) {

    public record StorePrice(BigDecimal price, Store store) {

        /** A row with the columns price, store_id, store_name, currency, address, city, country. */
        static StorePrice of(Row row) {
            return new StorePrice(row.getBigDecimal("price"), new Store(row.getLong("store_id"),
                    row.getString("store_name"), row.getString("currency"), new Address(row.getString("address"),
                            row.getString("city"), row.getString("country"))));
        }
    }

    public record Store(long id, String name, String currency, Address address) {
    }

    public record Address(String address, String city, String country) {
    }
}
