package dev.perflab.thorntail;

import javax.enterprise.context.ApplicationScoped;
import javax.inject.Inject;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;

import org.eclipse.microprofile.config.inject.ConfigProperty;

@Path("/hello")
@ApplicationScoped
public class HelloResource {

    // MicroProfile Config reads the environment variable PERFLAB_MODE for this name.
    @Inject
    @ConfigProperty(name = "perflab.mode", defaultValue = "jvm")
    String mode;

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String hello() {
        return "Hello from Thorntail (" + mode + ")";
    }
}
