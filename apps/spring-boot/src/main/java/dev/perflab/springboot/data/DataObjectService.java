package dev.perflab.springboot.data;

import dev.perflab.springboot.web.ConflictException;
import dev.perflab.springboot.web.NotFoundException;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A duplicate value is found by a lookup in the writing transaction (or, when two writers race,
 * by the unique constraint) and answered 409. Reads run outside a transaction, as in the Quarkus
 * app (see FruitService).
 */
@Service
public class DataObjectService {

    private final DataObjectRepository dataObjects;

    public DataObjectService(DataObjectRepository dataObjects) {
        this.dataObjects = dataObjects;
    }

    public DataObject find(String key) {
        return dataObjects.findByData(key)
                .orElseThrow(() -> new NotFoundException("Data object '" + key + "' not found"));
    }

    @Transactional
    public DataObject create(String data) {
        if (dataObjects.existsByData(data)) {
            throw new ConflictException("Data object '" + data + "' already exists");
        }
        return dataObjects.save(new DataObject(data));
    }
}
