package dev.perflab.micronaut;

import java.util.List;

import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

/** /fruit-prices, /fruit-prices/{name} and /fruit-prices-joined; JDBC blocks, hence the blocking executor. */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class FruitPriceController {

    private final FruitPriceService fruits;

    public FruitPriceController(FruitPriceService fruits) {
        this.fruits = fruits;
    }

    @Get("/fruit-prices")
    public List<PricedFruit> list() {
        return fruits.list();
    }

    @Get("/fruit-prices/{name}")
    public PricedFruit get(String name) {
        return fruits.get(name);
    }

    @Get("/fruit-prices-joined")
    public List<PricedFruit> joined() {
        return fruits.listJoined();
    }
}
