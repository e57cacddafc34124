package dev.perflab.virtualthreads;

import dev.perflab.DataPayload;
import dev.perflab.DataService;
import io.quarkus.arc.properties.IfBuildProperty;
import io.smallrye.common.annotation.RunOnVirtualThread;
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

/** dev.perflab.DataResource on virtual threads (see package-info). */
@IfBuildProperty(name = "perflab.virtual-threads", stringValue = "true")
@RunOnVirtualThread
@Path("/data")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class VirtualThreadDataResource {

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
        return Response.created(UriBuilder.fromPath("/data/{key}").build(created.data())).entity(created).build();
    }
}
