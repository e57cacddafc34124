package dev.perflab.virtualthreads;

import java.net.URI;
import java.util.List;

import dev.perflab.Fruit;
import dev.perflab.FruitRequest;
import dev.perflab.FruitService;
import io.quarkus.arc.properties.IfBuildProperty;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestPath;

/** dev.perflab.FruitResource on virtual threads (see package-info). */
@IfBuildProperty(name = "perflab.virtual-threads", stringValue = "true")
@RunOnVirtualThread
@Path("/fruits")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class VirtualThreadFruitResource {

    @Inject
    FruitService fruits;

    @GET
    public List<Fruit> list() {
        return fruits.list();
    }

    @GET
    @Path("{id}")
    public Fruit get(@RestPath Long id) {
        return fruits.get(id);
    }

    @POST
    public Response create(@Valid @NotNull FruitRequest body) {
        Fruit fruit = fruits.create(body.name());
        return Response.created(URI.create("/fruits/" + fruit.id)).entity(fruit).build();
    }

    @PUT
    @Path("{id}")
    public Fruit update(@RestPath Long id, @Valid @NotNull FruitRequest body) {
        return fruits.rename(id, body.name());
    }

    @DELETE
    @Path("{id}")
    public Response delete(@RestPath Long id) {
        fruits.delete(id);
        return Response.noContent().build();
    }
}
