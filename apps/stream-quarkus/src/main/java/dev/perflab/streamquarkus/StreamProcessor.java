package dev.perflab.streamquarkus;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Outgoing;

/** Every record of the input topic, transformed, to the output topic. */
@ApplicationScoped
public class StreamProcessor {
    @Incoming("input")
    @Outgoing("output")
    public String transform(String value) {
        return Transform.apply(value);
    }
}
