package dev.perflab.reactive;

import dev.perflab.DataPayload;
import dev.perflab.DuplicateException;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import org.jboss.resteasy.reactive.RestPath;

@Path("/reactive/data")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class ReactiveDataResource {

    @Inject
    Pool client;

    @GET
    @Path("{key}")
    public Uni<DataPayload> get(@RestPath String key) {
        return client.preparedQuery("SELECT data FROM data_objects WHERE data = $1").execute(Tuple.of(key))
                .map(rows -> {
                    if (rows.size() == 0) {
                        throw new NotFoundException("Data '" + key + "' not found");
                    }
                    return new DataPayload(rows.iterator().next().getString("data"));
                });
    }

    @POST
    public Uni<Response> create(@Valid @NotNull DataPayload body, @Context HttpServerRequest request) {
        String data = body.data();
        return client.withTransaction(tx -> tx.preparedQuery("SELECT 1 FROM data_objects WHERE data = $1")
                        .execute(Tuple.of(data))
                        .chain(found -> {
                            if (found.size() > 0) {
                                return Uni.createFrom().failure(duplicate(data));
                            }
                            return tx.preparedQuery("INSERT INTO data_objects (data) VALUES ($1)")
                                    .execute(Tuple.of(data));
                        }))
                .onFailure(SqlErrors::isUniqueViolation).transform(e -> duplicate(data))
                // The key is client text: let UriBuilder percent-encode it.
                .map(inserted -> Response.created(UriBuilder.fromPath(request.path()).path("{key}").build(data))
                        .entity(new DataPayload(data))
                        .build());
    }

    private static DuplicateException duplicate(String data) {
        return new DuplicateException("Data '" + data + "' already exists");
    }
}
