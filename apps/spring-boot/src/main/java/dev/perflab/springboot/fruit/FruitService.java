package dev.perflab.springboot.fruit;

import java.util.List;

import dev.perflab.springboot.web.ConflictException;
import dev.perflab.springboot.web.NotFoundException;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Fruit use cases. A duplicate name is found by a lookup inside the writing transaction, so a
 * rejected insert does not use up a value of the id sequence; two racing writers that both pass
 * the lookup still meet the unique constraint, whose violation is answered 409 as well.
 * Reads run outside a transaction of their own, as in the Quarkus app (parity: a read-only
 * transaction around GET /fruits doubled its SQL statements per request, BEGIN READ ONLY beside
 * the query). findById keeps Spring Data's own default, a read-only transaction.
 */
@Service
public class FruitService {

    private final FruitRepository fruits;

    public FruitService(FruitRepository fruits) {
        this.fruits = fruits;
    }

    public List<Fruit> findAll() {
        return fruits.findAllByOrderByNameAsc();
    }

    public Fruit findById(long id) {
        return fruits.findById(id).orElseThrow(() -> notFound(id));
    }

    @Transactional
    public Fruit create(String name) {
        if (fruits.existsByName(name)) {
            throw duplicate(name);
        }
        return fruits.save(new Fruit(name));
    }

    @Transactional
    public Fruit rename(long id, String name) {
        Fruit fruit = fruits.findById(id).orElseThrow(() -> notFound(id));
        if (name.equals(fruit.getName())) {
            return fruit;
        }
        if (fruits.existsByName(name)) {
            throw duplicate(name);
        }
        fruit.setName(name);
        // Flush here so a racing duplicate surfaces as a constraint violation inside this method.
        return fruits.saveAndFlush(fruit);
    }

    @Transactional
    public void delete(long id) {
        fruits.delete(fruits.findById(id).orElseThrow(() -> notFound(id)));
    }

    private static NotFoundException notFound(long id) {
        return new NotFoundException("Fruit " + id + " not found");
    }

    private static ConflictException duplicate(String name) {
        return new ConflictException("Fruit '" + name + "' already exists");
    }
}
