package dev.perflab.micronaut;

import io.micronaut.context.annotation.Value;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Produces;

/** No database access: served on the event loop. */
@Controller("/hello")
public class HelloController {

    private final String mode;

    public HelloController(@Value("${perflab.mode}") String mode) {
        this.mode = mode;
    }

    @Get
    @Produces(MediaType.TEXT_PLAIN)
    public String hello() {
        return "Hello from Micronaut (" + mode + ")";
    }
}
