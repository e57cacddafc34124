package dev.perflab.springwebflux.fruit;

import org.springframework.data.repository.reactive.ReactiveCrudRepository;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

public interface FruitRepository extends ReactiveCrudRepository<Fruit, Long> {

    Flux<Fruit> findAllByOrderByNameAsc();

    Mono<Boolean> existsByName(String name);

    Mono<Fruit> findByName(String name);
}
