package dev.perflab.micronaut;

import java.util.List;
import java.util.Optional;

import io.micronaut.http.HttpStatus;
import io.micronaut.http.exceptions.HttpStatusException;
import jakarta.inject.Singleton;
import jakarta.transaction.Transactional;

/** The fruit use cases; every write is one transaction. */
@Singleton
public class FruitService {

    private final FruitRepository fruits;

    public FruitService(FruitRepository fruits) {
        this.fruits = fruits;
    }

    public List<Fruit> list() {
        return fruits.findAllOrderByName();
    }

    public Fruit get(Long id) {
        return fruits.findById(id).orElseThrow(() -> notFound(id));
    }

    @Transactional
    public Fruit create(String name) {
        if (fruits.existsByName(name)) {
            throw duplicate(name);
        }
        return fruits.save(new Fruit(null, name));
    }

    @Transactional
    public Fruit rename(Long id, String name) {
        Optional<Fruit> found = fruits.findById(id);
        if (found.isEmpty()) {
            throw notFound(id);
        }
        if (fruits.existsByNameAndIdNotEqual(name, id)) {
            throw duplicate(name);
        }
        return fruits.update(new Fruit(id, name));
    }

    @Transactional
    public void delete(Long id) {
        if (fruits.findById(id).isEmpty()) {
            throw notFound(id);
        }
        fruits.deleteById(id);
    }

    private static HttpStatusException notFound(Long id) {
        return new HttpStatusException(HttpStatus.NOT_FOUND, "Fruit " + id + " not found");
    }

    private static HttpStatusException duplicate(String name) {
        return new HttpStatusException(HttpStatus.CONFLICT, "Fruit '" + name + "' already exists");
    }
}
