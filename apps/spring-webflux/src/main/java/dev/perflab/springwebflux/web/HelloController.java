package dev.perflab.springwebflux.web;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class HelloController {

    private final String greeting;

    public HelloController(@Value("${perflab.mode}") String mode) {
        this.greeting = "Hello from Spring WebFlux (" + mode + ")";
    }

    // No database access: this is the cheap path the lab times for the first response.
    @GetMapping(path = "/hello", produces = MediaType.TEXT_PLAIN_VALUE)
    public String hello() {
        return greeting;
    }
}
