package dev.perflab.thorntail;

import java.net.URI;
import java.util.List;

import javax.enterprise.context.ApplicationScoped;
import javax.persistence.EntityManager;
import javax.persistence.PersistenceContext;
import javax.transaction.Transactional;
import javax.validation.Valid;
import javax.validation.constraints.NotNull;
import javax.ws.rs.Consumes;
import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.NotFoundException;
import javax.ws.rs.POST;
import javax.ws.rs.PUT;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;

@Path("/fruits")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class FruitResource {

    @PersistenceContext
    EntityManager em;

    @GET
    public List<Fruit> list() {
        return em.createQuery("select f from Fruit f order by f.name", Fruit.class).getResultList();
    }

    // A non-numeric or out-of-range id fails the Long conversion, which JAX-RS answers with 404.
    @GET
    @Path("{id}")
    public Fruit get(@PathParam("id") Long id) {
        return find(id);
    }

    @POST
    @Transactional
    public Response create(@Valid @NotNull FruitRequest body, @Context UriInfo uriInfo) {
        if (nameTaken(body.getName(), null)) {
            throw new DuplicateException("Fruit '" + body.getName() + "' already exists");
        }
        Fruit fruit = new Fruit();
        fruit.setName(body.getName());
        em.persist(fruit);
        // Flush now so a concurrent duplicate hits the unique constraint here, not at commit.
        em.flush();
        URI location = uriInfo.getAbsolutePathBuilder().path(String.valueOf(fruit.getId())).build();
        return Response.created(location).entity(fruit).build();
    }

    @PUT
    @Path("{id}")
    @Transactional
    public Fruit update(@PathParam("id") Long id, @Valid @NotNull FruitRequest body) {
        Fruit fruit = find(id);
        if (nameTaken(body.getName(), id)) {
            throw new DuplicateException("Fruit '" + body.getName() + "' already exists");
        }
        fruit.setName(body.getName());
        em.flush();
        return fruit;
    }

    @DELETE
    @Path("{id}")
    @Transactional
    public Response delete(@PathParam("id") Long id) {
        em.remove(find(id));
        return Response.noContent().build();
    }

    private Fruit find(Long id) {
        Fruit fruit = em.find(Fruit.class, id);
        if (fruit == null) {
            throw new NotFoundException("Fruit " + id + " not found");
        }
        return fruit;
    }

    /** Whether another fruit than {@code exceptId} already has this name. */
    private boolean nameTaken(String name, Long exceptId) {
        return em.createQuery("select count(f) from Fruit f where f.name = :name and f.id <> :id", Long.class)
                .setParameter("name", name)
                .setParameter("id", exceptId == null ? -1L : exceptId)
                .getSingleResult() > 0;
    }
}
