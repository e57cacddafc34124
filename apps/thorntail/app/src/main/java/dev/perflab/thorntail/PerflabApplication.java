package dev.perflab.thorntail;

import javax.ws.rs.ApplicationPath;
import javax.ws.rs.core.Application;

/** Every resource is served from the root, so unknown paths reach JAX-RS and get a JSON 404. */
@ApplicationPath("/")
public class PerflabApplication extends Application {
}
