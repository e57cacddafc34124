package dev.perflab;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.NotFoundException;

/** The data object use cases, shared by DataResource and VirtualThreadDataResource. */
@ApplicationScoped
public class DataService {

    public DataPayload get(String key) {
        return DataObject.findByData(key)
                .map(found -> new DataPayload(found.data))
                .orElseThrow(() -> new NotFoundException("Data '" + key + "' not found"));
    }

    @Transactional
    public DataPayload create(String data) {
        if (DataObject.findByData(data).isPresent()) {
            throw new DuplicateException("Data '" + data + "' already exists");
        }
        DataObject object = new DataObject();
        object.data = data;
        object.persistAndFlush();
        return new DataPayload(object.data);
    }
}
