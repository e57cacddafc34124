package dev.perflab;

import java.net.URI;
import java.util.List;

import io.quarkus.arc.properties.UnlessBuildProperty;
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

/** /fruits on worker threads; the virtual-threads build has VirtualThreadFruitResource instead. */
@UnlessBuildProperty(name = "perflab.virtual-threads", stringValue = "true", enableIfMissing = true)
@Path("/fruits")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class FruitResource {

    @Inject
    FruitService fruits;

    @GET
    public List<Fruit> list() {
        return fruits.list();
    }

    // A non-numeric or out-of-range id fails the Long conversion, which JAX-RS answers with 404.
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
