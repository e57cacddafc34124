package dev.perflab.springwebflux.data;

import org.springframework.data.repository.reactive.ReactiveCrudRepository;

import reactor.core.publisher.Mono;

public interface DataObjectRepository extends ReactiveCrudRepository<DataObject, Long> {

    Mono<DataObject> findByData(String data);

    Mono<Boolean> existsByData(String data);
}
