package dev.perflab.springboot.price;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** The entities are returned as they are, and written by Spring MVC's Jackson converter. */
@RestController
public class PricedFruitController {

    private final PricedFruitService service;

    public PricedFruitController(PricedFruitService service) {
        this.service = service;
    }

    @GetMapping("/fruit-prices")
    public List<PricedFruit> list() {
        return service.findAll();
    }

    @GetMapping("/fruit-prices/{name}")
    public PricedFruit get(@PathVariable String name) {
        return service.findByName(name);
    }

    @GetMapping("/fruit-prices-joined")
    public List<PricedFruit> joined() {
        return service.findAllJoined();
    }
}
