package dev.perflab.streamspring;

import java.util.concurrent.ExecutionException;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The stream's REST view: send a record to the input topic, read the output topic's last records. */
@RestController
class StreamController {
    private final StreamPipeline pipeline;

    StreamController(StreamPipeline pipeline) {
        this.pipeline = pipeline;
    }

    @PostMapping(path = "/stream/send", consumes = MediaType.TEXT_PLAIN_VALUE)
    ResponseEntity<Void> send(@RequestBody String value) throws InterruptedException, ExecutionException {
        pipeline.send(value);
        return ResponseEntity.status(HttpStatus.ACCEPTED).build();
    }

    @GetMapping(path = "/stream/out", produces = MediaType.TEXT_PLAIN_VALUE)
    String out() {
        return String.join("\n", pipeline.recent());
    }

    @GetMapping(path = "/health/ready", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<String> ready() {
        boolean up = pipeline.running();
        return ResponseEntity.status(up ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE)
                .body(up ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}");
    }
}
