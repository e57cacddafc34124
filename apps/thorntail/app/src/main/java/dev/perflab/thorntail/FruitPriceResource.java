package dev.perflab.thorntail;

import java.util.List;

import javax.enterprise.context.ApplicationScoped;
import javax.persistence.EntityManager;
import javax.persistence.PersistenceContext;
import javax.transaction.Transactional;
import javax.ws.rs.GET;
import javax.ws.rs.NotFoundException;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;

/**
 * Fruits with their prices, the prices loaded lazily as JPA maps a one-to-many by default.
 *
 * JAX-RS writes the entities to JSON after the resource method has returned. Outside a transaction
 * the container's entity manager detaches what a query loads as soon as the query returns (JPA 2.2,
 * section 7.6.2), so a lazy collection first touched by the JSON writer cannot load any more
 * (Hibernate's LazyInitializationException). As Java EE applications do, each method therefore runs
 * in a transaction and initialises the collections it returns before that transaction ends: one
 * query for the fruits, then one per fruit for its prices (each price's store comes with it, a
 * many-to-one being eager by default).
 */
@Path("/fruit-prices")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class FruitPriceResource {

    @PersistenceContext
    EntityManager em;

    @GET
    @Transactional
    public List<PricedFruit> list() {
        List<PricedFruit> fruits = em.createNamedQuery(PricedFruit.ALL, PricedFruit.class).getResultList();
        for (PricedFruit fruit : fruits) {
            fruit.getStorePrices().size();
        }
        return fruits;
    }

    @GET
    @Path("{name}")
    @Transactional
    public PricedFruit get(@PathParam("name") String name) {
        PricedFruit fruit = em.createNamedQuery(PricedFruit.BY_NAME, PricedFruit.class)
                .setParameter("name", name)
                .getResultStream()
                .findFirst()
                .orElseThrow(() -> new NotFoundException("Fruit '" + name + "' not found"));
        fruit.getStorePrices().size();
        return fruit;
    }
}
