package dev.perflab.springwebflux.fruit;

import dev.perflab.springwebflux.web.ConflictException;
import dev.perflab.springwebflux.web.NotFoundException;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Fruit use cases, as in the Spring MVC app but non-blocking: each write is one reactive
 * transaction (R2dbcTransactionManager). A duplicate name is found by a lookup inside it; two
 * racing writers that both pass the lookup still meet the unique constraint, answered 409 too.
 * Reads are single statements and run outside a transaction (see the README: a read-only
 * transaction cancelled by a client that goes away can wedge its pooled connection).
 */
@Service
public class FruitService {

    private final FruitRepository fruits;

    public FruitService(FruitRepository fruits) {
        this.fruits = fruits;
    }

    public Flux<Fruit> findAll() {
        return fruits.findAllByOrderByNameAsc();
    }

    public Mono<Fruit> findById(long id) {
        return fruits.findById(id).switchIfEmpty(Mono.error(() -> notFound(id)));
    }

    @Transactional
    public Mono<Fruit> create(String name) {
        return fruits.existsByName(name)
                .flatMap(taken -> taken ? Mono.error(duplicate(name)) : fruits.save(new Fruit(name)));
    }

    @Transactional
    public Mono<Fruit> rename(long id, String name) {
        return findById(id).flatMap(fruit -> {
            if (name.equals(fruit.getName())) {
                return Mono.just(fruit);
            }
            return fruits.existsByName(name).flatMap(taken -> {
                if (taken) {
                    return Mono.error(duplicate(name));
                }
                fruit.setName(name);
                return fruits.save(fruit);
            });
        });
    }

    @Transactional
    public Mono<Void> delete(long id) {
        return findById(id).flatMap(fruits::delete);
    }

    private static NotFoundException notFound(long id) {
        return new NotFoundException("Fruit " + id + " not found");
    }

    private static ConflictException duplicate(String name) {
        return new ConflictException("Fruit '" + name + "' already exists");
    }
}
