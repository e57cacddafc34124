package dev.perflab.helidon;

import java.math.BigDecimal;
import java.util.List;

/** A fruit with its prices per store; each price names its store, which carries its address. */
record PricedFruit(long id, String name, List<StorePrice> storePrices) {

    record StorePrice(BigDecimal price, Store store) {
    }

    record Store(long id, String name, String currency, Address address) {
    }

    record Address(String address, String city, String country) {
    }
}
