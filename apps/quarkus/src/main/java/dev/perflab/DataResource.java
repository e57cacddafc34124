package dev.perflab;

import io.quarkus.arc.properties.UnlessBuildProperty;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import org.jboss.resteasy.reactive.RestPath;

/** /data on worker threads; the virtual-threads build has VirtualThreadDataResource instead. */
@UnlessBuildProperty(name = "perflab.virtual-threads", stringValue = "true", enableIfMissing = true)
@Path("/data")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class DataResource {

    @Inject
    DataService data;

    @GET
    @Path("{key}")
    public DataPayload get(@RestPath String key) {
        return data.get(key);
    }

    @POST
    public Response create(@Valid @NotNull DataPayload body) {
        DataPayload created = data.create(body.data());
        // The key is client text: let UriBuilder percent-encode it.
        return Response.created(UriBuilder.fromPath("/data/{key}").build(created.data())).entity(created).build();
    }
}
