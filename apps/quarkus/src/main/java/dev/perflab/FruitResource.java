package dev.perflab;

import java.net.URI;
import java.util.List;

import io.quarkus.panache.common.Sort;
import jakarta.transaction.Transactional;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestPath;

@Path("/fruits")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class FruitResource {

    @GET
    public List<Fruit> list() {
        return Fruit.listAll(Sort.by("name"));
    }

    // A non-numeric or out-of-range id fails the Long conversion, which JAX-RS answers with 404.
    @GET
    @Path("{id}")
    public Fruit get(@RestPath Long id) {
        return find(id);
    }

    @POST
    @Transactional
    public Response create(@Valid @NotNull FruitRequest body) {
        if (Fruit.count("name", body.name()) > 0) {
            throw new DuplicateException("Fruit '" + body.name() + "' already exists");
        }
        Fruit fruit = new Fruit();
        fruit.name = body.name();
        // Flush now so a concurrent duplicate hits the unique constraint here, not at commit.
        fruit.persistAndFlush();
        return Response.created(URI.create("/fruits/" + fruit.id)).entity(fruit).build();
    }

    @PUT
    @Path("{id}")
    @Transactional
    public Fruit update(@RestPath Long id, @Valid @NotNull FruitRequest body) {
        Fruit fruit = find(id);
        if (Fruit.count("name = ?1 and id <> ?2", body.name(), id) > 0) {
            throw new DuplicateException("Fruit '" + body.name() + "' already exists");
        }
        fruit.name = body.name();
        Fruit.flush();
        return fruit;
    }

    @DELETE
    @Path("{id}")
    @Transactional
    public Response delete(@RestPath Long id) {
        if (!Fruit.deleteById(id)) {
            throw new NotFoundException("Fruit " + id + " not found");
        }
        return Response.noContent().build();
    }

    private static Fruit find(Long id) {
        Fruit fruit = Fruit.findById(id);
        if (fruit == null) {
            throw new NotFoundException("Fruit " + id + " not found");
        }
        return fruit;
    }
}
