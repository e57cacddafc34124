package dev.perflab.helidon;

import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;

/** GET /hello: plain text, no database. */
final class HelloService implements HttpService {

    private final String greeting;

    HelloService(String mode) {
        this.greeting = "Hello from Helidon SE (" + mode + ")";
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", (req, res) -> res.send(greeting))
                .any("/", Errors::methodNotAllowed);
    }
}
