package dev.perflab.springboot.price;

import java.util.List;

import dev.perflab.springboot.web.NotFoundException;

import org.springframework.data.domain.Sort;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Fruits with their prices per store, read in a read-only transaction per call.
 *
 * <p>findAll and findByName load the fruits only; their prices are a lazy collection that the
 * JSON writer reads after the transaction has ended, in the EntityManager that stays open for
 * the request (open-in-view, registered for /fruit-prices only: see FruitPricesOpenInView). Hibernate
 * loads each fruit's prices then, with their stores, in one query per fruit.
 *
 * <p>findAllJoined is the one-query variant: the prices and stores are fetch-joined, so the JSON
 * writer finds everything loaded and no EntityManager needs to stay open.
 */
@Service
@Transactional(readOnly = true)
public class PricedFruitService {

    private final PricedFruitRepository fruits;

    public PricedFruitService(PricedFruitRepository fruits) {
        this.fruits = fruits;
    }

    public List<PricedFruit> findAll() {
        return fruits.findAll(Sort.by("name"));
    }

    public PricedFruit findByName(String name) {
        return fruits.findByName(name)
                .orElseThrow(() -> new NotFoundException("Fruit '" + name + "' not found"));
    }

    public List<PricedFruit> findAllJoined() {
        return fruits.findAllWithStorePrices();
    }
}
