package dev.perflab.streamquarkus;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.reactive.messaging.Incoming;

/** The output topic's last records, for GET /stream/out. */
@ApplicationScoped
public class OutputView {
    private static final int KEPT = 200;

    private final Deque<String> recent = new ArrayDeque<>();

    @Incoming("view")
    public synchronized void keep(String value) {
        recent.addLast(value);
        if (recent.size() > KEPT) {
            recent.removeFirst();
        }
    }

    public synchronized List<String> recent() {
        return new ArrayList<>(recent);
    }
}
