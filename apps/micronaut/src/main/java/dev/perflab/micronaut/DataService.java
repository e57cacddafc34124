package dev.perflab.micronaut;

import io.micronaut.http.HttpStatus;
import io.micronaut.http.exceptions.HttpStatusException;
import jakarta.inject.Singleton;
import jakarta.transaction.Transactional;

@Singleton
public class DataService {

    private final DataObjectRepository objects;

    public DataService(DataObjectRepository objects) {
        this.objects = objects;
    }

    public DataPayload get(String key) {
        return objects.findByData(key)
                .map(found -> new DataPayload(found.data()))
                .orElseThrow(() -> new HttpStatusException(HttpStatus.NOT_FOUND, "Data '" + key + "' not found"));
    }

    @Transactional
    public DataPayload create(String data) {
        if (objects.existsByData(data)) {
            throw new HttpStatusException(HttpStatus.CONFLICT, "Data '" + data + "' already exists");
        }
        return new DataPayload(objects.save(new DataObject(null, data)).data());
    }
}
