package dev.perflab.micronaut;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.exceptions.HttpStatusException;
import io.micronaut.http.uri.UriBuilder;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

@Controller("/data")
@ExecuteOn(TaskExecutors.BLOCKING)
public class DataController {

    private final DataService data;

    public DataController(DataService data) {
        this.data = data;
    }

    @Get("/{key}")
    public DataPayload get(String key) {
        return data.get(key);
    }

    @Post
    public HttpResponse<DataPayload> create(@Valid @NotNull @Body DataPayload body) {
        DataPayload created = data.create(body.data());
        // The key is client text: UriBuilder percent-encodes it.
        return HttpResponse.created(created, UriBuilder.of("/data").path(created.data()).build());
    }
}
