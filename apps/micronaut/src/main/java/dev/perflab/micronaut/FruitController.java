package dev.perflab.micronaut;

import java.net.URI;
import java.util.List;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.Status;
import io.micronaut.http.exceptions.HttpStatusException;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

/** /fruits; JDBC blocks, so the methods run on the blocking executor, not on the event loop. */
@Controller("/fruits")
@ExecuteOn(TaskExecutors.BLOCKING)
public class FruitController {

    private final FruitService fruits;

    public FruitController(FruitService fruits) {
        this.fruits = fruits;
    }

    @Get
    public List<Fruit> list() {
        return fruits.list();
    }

    @Get("/{id}")
    public Fruit get(String id) {
        return fruits.get(parseId(id));
    }

    @Post
    public HttpResponse<Fruit> create(@Valid @NotNull @Body FruitRequest body) {
        Fruit fruit = fruits.create(body.name());
        return HttpResponse.created(fruit, URI.create("/fruits/" + fruit.id()));
    }

    @Put("/{id}")
    public Fruit update(String id, @Valid @NotNull @Body FruitRequest body) {
        return fruits.rename(parseId(id), body.name());
    }

    @Delete("/{id}")
    @Status(HttpStatus.NO_CONTENT)
    public void delete(String id) {
        fruits.delete(parseId(id));
    }

    // The contract answers a non-numeric or out-of-range id with 404 (Micronaut's own conversion of
    // a Long path variable would answer 400), so the id is taken as text and parsed here.
    private static Long parseId(String id) {
        try {
            return Long.valueOf(id);
        } catch (NumberFormatException e) {
            throw new HttpStatusException(HttpStatus.NOT_FOUND, "Fruit " + id + " not found");
        }
    }
}
