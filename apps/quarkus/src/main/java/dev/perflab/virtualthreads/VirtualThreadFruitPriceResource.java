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
import org.jboss.resteasy.reactive.RestPath;

/** dev.perflab.FruitPriceResource on virtual threads (see package-info). */
@IfBuildProperty(name = "perflab.virtual-threads", stringValue = "true")
@RunOnVirtualThread
@Path("/fruit-prices")
@Produces(MediaType.APPLICATION_JSON)
public class VirtualThreadFruitPriceResource {

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
