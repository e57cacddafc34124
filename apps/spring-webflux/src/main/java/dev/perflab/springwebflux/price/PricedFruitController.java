package dev.perflab.springwebflux.price;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import reactor.core.publisher.Mono;

@RestController
public class PricedFruitController {

    private final PricedFruitService service;

    public PricedFruitController(PricedFruitService service) {
        this.service = service;
    }

    @GetMapping("/fruit-prices")
    public Mono<List<PricedFruit>> list() {
        return service.findAll();
    }

    @GetMapping("/fruit-prices/{name}")
    public Mono<PricedFruit> get(@PathVariable String name) {
        return service.findByName(name);
    }

    @GetMapping("/fruit-prices-joined")
    public Mono<List<PricedFruit>> joined() {
        return service.findAllJoined();
    }
}
