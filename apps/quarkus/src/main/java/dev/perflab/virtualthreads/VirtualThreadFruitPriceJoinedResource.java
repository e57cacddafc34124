package dev.perflab.virtualthreads;

import java.util.List;

import dev.perflab.FruitPriceService;
import dev.perflab.PricedFruit;
import io.quarkus.arc.properties.IfBuildProperty;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** dev.perflab.FruitPriceJoinedResource on virtual threads (see package-info). */
@IfBuildProperty(name = "perflab.virtual-threads", stringValue = "true")
@RunOnVirtualThread
@Path("/fruit-prices-joined")
@Produces(MediaType.APPLICATION_JSON)
public class VirtualThreadFruitPriceJoinedResource {

    @Inject
    FruitPriceService prices;

    @GET
    public List<PricedFruit> list() {
        return prices.listJoined();
    }
}
