package dev.perflab;

import java.util.List;

import io.quarkus.panache.common.Sort;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.NotFoundException;

/**
 * The fruit use cases, shared by the two declarations of the /fruits endpoints: FruitResource
 * (worker threads) and VirtualThreadFruitResource (virtual threads, its own build).
 */
@ApplicationScoped
public class FruitService {

    public List<Fruit> list() {
        return Fruit.listAll(Sort.by("name"));
    }

    public Fruit get(Long id) {
        Fruit fruit = Fruit.findById(id);
        if (fruit == null) {
            throw new NotFoundException("Fruit " + id + " not found");
        }
        return fruit;
    }

    @Transactional
    public Fruit create(String name) {
        if (Fruit.count("name", name) > 0) {
            throw new DuplicateException("Fruit '" + name + "' already exists");
        }
        Fruit fruit = new Fruit();
        fruit.name = name;
        // Flush now so a concurrent duplicate hits the unique constraint here, not at commit.
        fruit.persistAndFlush();
        return fruit;
    }

    @Transactional
    public Fruit rename(Long id, String name) {
        Fruit fruit = get(id);
        if (Fruit.count("name = ?1 and id <> ?2", name, id) > 0) {
            throw new DuplicateException("Fruit '" + name + "' already exists");
        }
        fruit.name = name;
        Fruit.flush();
        return fruit;
    }

    @Transactional
    public void delete(Long id) {
        if (!Fruit.deleteById(id)) {
            throw new NotFoundException("Fruit " + id + " not found");
        }
    }
}
