package dev.perflab.springwebflux.data;

import dev.perflab.springwebflux.web.ConflictException;
import dev.perflab.springwebflux.web.NotFoundException;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import reactor.core.publisher.Mono;

/**
 * A duplicate value is found by a lookup in the writing transaction (or, when two writers race,
 * by the unique constraint) and answered 409. The read is a single statement, outside a
 * transaction, as in FruitService.
 */
@Service
public class DataObjectService {

    private final DataObjectRepository dataObjects;

    public DataObjectService(DataObjectRepository dataObjects) {
        this.dataObjects = dataObjects;
    }

    public Mono<DataObject> find(String key) {
        return dataObjects.findByData(key)
                .switchIfEmpty(Mono.error(() -> new NotFoundException("Data object '" + key + "' not found")));
    }

    @Transactional
    public Mono<DataObject> create(String data) {
        return dataObjects.existsByData(data).flatMap(taken -> taken
                ? Mono.error(new ConflictException("Data object '" + data + "' already exists"))
                : dataObjects.save(new DataObject(data)));
    }
}
