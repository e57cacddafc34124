package dev.perflab.springwebflux.price;

import java.util.List;

import dev.perflab.springwebflux.fruit.Fruit;
import dev.perflab.springwebflux.fruit.FruitRepository;
import dev.perflab.springwebflux.web.NotFoundException;

import org.springframework.stereotype.Service;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Fruits with their prices per store. R2DBC has no lazy loading: findAll reads the fruits, then each
 * fruit's prices with their stores, one query per fruit, one after the other (concatMap keeps the
 * fruits' order and uses one connection at a time). The fruits are collected first, so their query
 * has given its connection back before the first price query asks for one. findAllJoined is the
 * one-query variant. Reads run without a transaction, as in FruitService (see the README).
 */
@Service
public class PricedFruitService {

    private final FruitRepository fruits;
    private final StorePriceRepository prices;

    public PricedFruitService(FruitRepository fruits, StorePriceRepository prices) {
        this.fruits = fruits;
        this.prices = prices;
    }

    public Mono<List<PricedFruit>> findAll() {
        return fruits.findAllByOrderByNameAsc()
                .collectList()
                .flatMapMany(Flux::fromIterable)
                .concatMap(this::withPrices)
                .collectList();
    }

    public Mono<PricedFruit> findByName(String name) {
        return fruits.findByName(name)
                .switchIfEmpty(Mono.error(() -> new NotFoundException("Fruit '" + name + "' not found")))
                .flatMap(this::withPrices);
    }

    public Mono<List<PricedFruit>> findAllJoined() {
        return prices.findAllFruitsWithPrices();
    }

    private Mono<PricedFruit> withPrices(Fruit fruit) {
        return prices.findByFruitId(fruit.getId())
                .map(storePrices -> new PricedFruit(fruit.getId(), fruit.getName(), storePrices));
    }
}
