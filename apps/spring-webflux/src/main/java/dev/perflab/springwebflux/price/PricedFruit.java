package dev.perflab.springwebflux.price;

import java.math.BigDecimal;
import java.util.List;

/** A fruit with its prices per store, as the contract writes it (Spring Data R2DBC maps no associations). */
public record PricedFruit(long id, String name, List<StorePrice> storePrices) {

    public record StorePrice(BigDecimal price, Store store) {
    }

    public record Store(long id, String name, String currency, Address address) {
    }

    public record Address(String address, String city, String country) {
    }
}
