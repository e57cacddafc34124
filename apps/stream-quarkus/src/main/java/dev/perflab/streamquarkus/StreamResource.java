package dev.perflab.streamquarkus;

import java.util.concurrent.ExecutionException;

import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

/** The stream's REST view: send a record to the input topic, read the output topic's last records. */
@Path("/stream")
public class StreamResource {
    @Inject
    @Channel("send")
    Emitter<String> input;

    @Inject
    OutputView view;

    @POST
    @Path("send")
    @Consumes(MediaType.TEXT_PLAIN)
    public Response send(String value) throws InterruptedException, ExecutionException {
        input.send(value).toCompletableFuture().get();
        return Response.accepted().build();
    }

    @GET
    @Path("out")
    @Produces(MediaType.TEXT_PLAIN)
    public String out() {
        return String.join("\n", view.recent());
    }
}
