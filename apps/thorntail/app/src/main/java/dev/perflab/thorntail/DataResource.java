package dev.perflab.thorntail;

import java.util.Optional;

import javax.enterprise.context.ApplicationScoped;
import javax.persistence.EntityManager;
import javax.persistence.PersistenceContext;
import javax.transaction.Transactional;
import javax.validation.Valid;
import javax.validation.constraints.NotNull;
import javax.ws.rs.Consumes;
import javax.ws.rs.GET;
import javax.ws.rs.NotFoundException;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;

@Path("/data")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class DataResource {

    @PersistenceContext
    EntityManager em;

    @GET
    @Path("{key}")
    public DataPayload get(@PathParam("key") String key) {
        return findByData(key)
                .map(found -> new DataPayload(found.getData()))
                .orElseThrow(() -> new NotFoundException("Data '" + key + "' not found"));
    }

    @POST
    @Transactional
    public Response create(@Valid @NotNull DataPayload body, @Context UriInfo uriInfo) {
        if (findByData(body.getData()).isPresent()) {
            throw new DuplicateException("Data '" + body.getData() + "' already exists");
        }
        DataObject object = new DataObject(body.getData());
        em.persist(object);
        em.flush();
        // The key is client text: let UriBuilder percent-encode it.
        return Response.created(uriInfo.getAbsolutePathBuilder().path("{key}").build(object.getData()))
                .entity(new DataPayload(object.getData()))
                .build();
    }

    private Optional<DataObject> findByData(String data) {
        return em.createNamedQuery(DataObject.BY_DATA, DataObject.class)
                .setParameter("data", data)
                .getResultStream()
                .findFirst();
    }
}
