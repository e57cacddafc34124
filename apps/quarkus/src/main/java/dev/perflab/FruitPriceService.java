package dev.perflab;

import java.util.List;

import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.NotFoundException;

/**
 * Fruits with their prices per store, shared by the worker-thread and virtual-thread declarations
 * of /fruit-prices and /fruit-prices-joined.
 *
 * <p>list and get are the Hibernate ORM guide's reads: no transaction, so Quarkus gives the request
 * its request-scoped (read-only) session, which stays open until the request ends. The JSON writer
 * reads the lazy prices after the method returns, and Hibernate loads them then, in that session,
 * batched by Quarkus's default fetch batch size (16 collections per query).
 *
 * <p>listJoined is the one-query variant: one transaction, one query that fetch-joins the prices and
 * their stores, so the JSON writer finds everything loaded.
 */
@ApplicationScoped
public class FruitPriceService {

    public List<PricedFruit> list() {
        return PricedFruit.listAll(Sort.by("name"));
    }

    public PricedFruit get(String name) {
        PricedFruit fruit = PricedFruit.findByName(name);
        if (fruit == null) {
            throw new NotFoundException("Fruit '" + name + "' not found");
        }
        return fruit;
    }

    @Transactional
    public List<PricedFruit> listJoined() {
        return PricedFruit.listWithStorePrices();
    }
}
