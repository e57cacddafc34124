package dev.perflab;

import io.quarkus.arc.properties.UnlessBuildProperty;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** /hello on a worker thread; the virtual-threads build has VirtualThreadHelloResource instead. */
@UnlessBuildProperty(name = "perflab.virtual-threads", stringValue = "true", enableIfMissing = true)
@Path("/hello")
public class HelloResource {

    @ConfigProperty(name = "perflab.mode")
    String mode;

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String hello() {
        return "Hello from Quarkus (" + mode + ")";
    }
}
