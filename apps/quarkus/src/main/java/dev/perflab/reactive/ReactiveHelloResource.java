package dev.perflab.reactive;

import io.smallrye.common.annotation.NonBlocking;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.config.inject.ConfigProperty;

@Path("/reactive/hello")
public class ReactiveHelloResource {

    @ConfigProperty(name = "perflab.mode")
    String mode;

    // A plain return type would be dispatched to a worker thread; this stays on the event loop.
    @GET
    @NonBlocking
    @Produces(MediaType.TEXT_PLAIN)
    public String hello() {
        return "Hello from Quarkus (" + mode + ")";
    }
}
