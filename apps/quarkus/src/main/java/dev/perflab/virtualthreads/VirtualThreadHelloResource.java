package dev.perflab.virtualthreads;

import io.quarkus.arc.properties.IfBuildProperty;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** dev.perflab.HelloResource on a virtual thread (see package-info). */
@IfBuildProperty(name = "perflab.virtual-threads", stringValue = "true")
@RunOnVirtualThread
@Path("/hello")
public class VirtualThreadHelloResource {

    @ConfigProperty(name = "perflab.mode")
    String mode;

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String hello() {
        return "Hello from Quarkus (" + mode + ")";
    }
}
