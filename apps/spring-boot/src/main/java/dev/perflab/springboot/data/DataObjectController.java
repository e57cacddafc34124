package dev.perflab.springboot.data;

import java.net.URI;

import jakarta.validation.Valid;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

@RestController
@RequestMapping("/data")
public class DataObjectController {

    private final DataObjectService service;

    public DataObjectController(DataObjectService service) {
        this.service = service;
    }

    @GetMapping("/{key}")
    public DataObject get(@PathVariable String key) {
        return service.find(key);
    }

    @PostMapping
    public ResponseEntity<DataObject> create(@Valid @RequestBody DataRequest request) {
        DataObject created = service.create(request.data());
        // The key is the value itself; the builder percent-encodes it for the Location header.
        URI location = ServletUriComponentsBuilder.fromCurrentRequest()
                .path("/{key}")
                .buildAndExpand(created.getData())
                .toUri();
        return ResponseEntity.created(location).body(created);
    }
}
