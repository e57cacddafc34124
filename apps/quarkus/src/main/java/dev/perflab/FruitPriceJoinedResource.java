package dev.perflab;

import java.util.List;

import io.quarkus.arc.properties.UnlessBuildProperty;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** /fruit-prices-joined on worker threads; the virtual-threads build has VirtualThreadFruitPriceJoinedResource instead. */
@UnlessBuildProperty(name = "perflab.virtual-threads", stringValue = "true", enableIfMissing = true)
@Path("/fruit-prices-joined")
@Produces(MediaType.APPLICATION_JSON)
public class FruitPriceJoinedResource {

    @Inject
    FruitPriceService prices;

    @GET
    public List<PricedFruit> list() {
        return prices.listJoined();
    }
}
