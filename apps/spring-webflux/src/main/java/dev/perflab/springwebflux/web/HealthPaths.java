package dev.perflab.springwebflux.web;

import java.util.Set;

import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import reactor.core.publisher.Mono;

/**
 * Actuator answers a path below /health that names no group (/health/foo) with a 404 and an empty
 * body; the contract wants its JSON error body for every unknown route. Such paths end here with a
 * 404 error, which JsonErrorWebExceptionHandler writes as JSON.
 */
@Component
public class HealthPaths implements WebFilter {

    private static final Set<String> KNOWN = Set.of("/health", "/health/live", "/health/ready");

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getPath().pathWithinApplication().value();
        if (path.startsWith("/health/") && !KNOWN.contains(path)) {
            return Mono.error(new ResponseStatusException(HttpStatus.NOT_FOUND));
        }
        return chain.filter(exchange);
    }
}
