package dev.perflab.thorntail;

import java.util.List;

import javax.enterprise.context.ApplicationScoped;
import javax.persistence.EntityManager;
import javax.persistence.PersistenceContext;
import javax.transaction.Transactional;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;

/**
 * The same body as /fruit-prices, loaded in one query: fruits, prices and stores in a left fetch
 * join, in one transaction.
 */
@Path("/fruit-prices-joined")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class JoinedFruitPriceResource {

    @PersistenceContext
    EntityManager em;

    @GET
    @Transactional
    public List<PricedFruit> list() {
        return em.createNamedQuery(PricedFruit.ALL_WITH_PRICES, PricedFruit.class)
                // Hibernate: the entities are only read (no snapshots for dirty checking), and
                // "distinct" removes the join's repeated fruits in memory, not in SQL.
                .setHint("org.hibernate.readOnly", true)
                .setHint("hibernate.query.passDistinctThrough", false)
                .getResultList();
    }
}
