package dev.perflab;

import java.util.List;

import io.quarkus.arc.properties.UnlessBuildProperty;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.jboss.resteasy.reactive.RestPath;

/**
 * /fruit-prices on worker threads; the virtual-threads build has VirtualThreadFruitPriceResource
 * instead. The entities are returned as they are: the lazy prices are loaded while Jackson writes them.
 */
@UnlessBuildProperty(name = "perflab.virtual-threads", stringValue = "true", enableIfMissing = true)
@Path("/fruit-prices")
@Produces(MediaType.APPLICATION_JSON)
public class FruitPriceResource {

    @Inject
    FruitPriceService prices;

    @GET
    public List<PricedFruit> list() {
        return prices.list();
    }

    @GET
    @Path("{name}")
    public PricedFruit get(@RestPath String name) {
        return prices.get(name);
    }
}
