package dev.perflab;

import jakarta.transaction.Transactional;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import org.jboss.resteasy.reactive.RestPath;

@Path("/data")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class DataResource {

    @GET
    @Path("{key}")
    public DataPayload get(@RestPath String key) {
        return DataObject.findByData(key)
                .map(found -> new DataPayload(found.data))
                .orElseThrow(() -> new NotFoundException("Data '" + key + "' not found"));
    }

    @POST
    @Transactional
    public Response create(@Valid @NotNull DataPayload body) {
        if (DataObject.findByData(body.data()).isPresent()) {
            throw new DuplicateException("Data '" + body.data() + "' already exists");
        }
        DataObject object = new DataObject();
        object.data = body.data();
        object.persistAndFlush();
        // The key is client text: let UriBuilder percent-encode it.
        return Response.created(UriBuilder.fromPath("/data/{key}").build(object.data))
                .entity(new DataPayload(object.data))
                .build();
    }
}
