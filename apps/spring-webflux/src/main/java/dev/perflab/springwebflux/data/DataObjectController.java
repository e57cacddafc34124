package dev.perflab.springwebflux.data;

import jakarta.validation.Valid;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.UriComponentsBuilder;

import reactor.core.publisher.Mono;

@RestController
@RequestMapping("/data")
public class DataObjectController {

    private final DataObjectService service;

    public DataObjectController(DataObjectService service) {
        this.service = service;
    }

    @GetMapping("/{key}")
    public Mono<DataObject> get(@PathVariable String key) {
        return service.find(key);
    }

    @PostMapping
    public Mono<ResponseEntity<DataObject>> create(@Valid @RequestBody DataRequest request,
            ServerWebExchange exchange) {
        // The key is client text: encode() makes the expansion percent-encode it, '/' included.
        return service.create(request.data())
                .map(created -> ResponseEntity.created(UriComponentsBuilder.fromUri(exchange.getRequest().getURI())
                                .replaceQuery(null)
                                .path("/{key}")
                                .encode()
                                .buildAndExpand(created.getData())
                                .toUri())
                        .body(created));
    }
}
