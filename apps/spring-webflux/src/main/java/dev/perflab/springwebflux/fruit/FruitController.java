package dev.perflab.springwebflux.fruit;

import java.util.List;

import jakarta.validation.Valid;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.UriComponentsBuilder;

import reactor.core.publisher.Mono;

@RestController
@RequestMapping("/fruits")
public class FruitController {

    private final FruitService service;

    public FruitController(FruitService service) {
        this.service = service;
    }

    // Collected before it is written: a Flux would be written row by row from inside the query's
    // connection scope, and a client that goes away mid-write must not be able to strand the
    // pooled connection (see the README).
    @GetMapping
    public Mono<List<Fruit>> list() {
        return service.findAll().collectList();
    }

    @GetMapping("/{id}")
    public Mono<Fruit> get(@PathVariable long id) {
        return service.findById(id);
    }

    @PostMapping
    public Mono<ResponseEntity<Fruit>> create(@Valid @RequestBody FruitRequest request, ServerWebExchange exchange) {
        return service.create(request.name())
                .map(fruit -> ResponseEntity.created(UriComponentsBuilder.fromUri(exchange.getRequest().getURI())
                                .replaceQuery(null)
                                .path("/{id}")
                                .buildAndExpand(fruit.getId())
                                .toUri())
                        .body(fruit));
    }

    @PutMapping("/{id}")
    public Mono<Fruit> update(@PathVariable long id, @Valid @RequestBody FruitRequest request) {
        return service.rename(id, request.name());
    }

    @DeleteMapping("/{id}")
    public Mono<ResponseEntity<Void>> delete(@PathVariable long id) {
        return service.delete(id).then(Mono.fromSupplier(() -> ResponseEntity.noContent().build()));
    }
}
