package dev.perflab.reactive;

import java.util.ArrayList;
import java.util.List;

import dev.perflab.DuplicateException;
import dev.perflab.FruitRequest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import org.jboss.resteasy.reactive.RestPath;

/** The fruits of the contract, non-blocking: each method runs on the event loop and returns a Uni. */
@Path("/reactive/fruits")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class ReactiveFruitResource {

    public record FruitJson(long id, String name) {
        static FruitJson of(Row row) {
            return new FruitJson(row.getLong("id"), row.getString("name"));
        }
    }

    @Inject
    Pool client;

    @GET
    public Uni<List<FruitJson>> list() {
        return client.query("SELECT id, name FROM fruits ORDER BY name").execute()
                .map(rows -> {
                    List<FruitJson> fruits = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        fruits.add(FruitJson.of(row));
                    }
                    return fruits;
                });
    }

    // A non-numeric or out-of-range id fails the Long conversion, which JAX-RS answers with 404.
    @GET
    @Path("{id}")
    public Uni<FruitJson> get(@RestPath Long id) {
        return client.preparedQuery("SELECT id, name FROM fruits WHERE id = $1").execute(Tuple.of(id))
                .map(rows -> only(rows, id));
    }

    @POST
    public Uni<Response> create(@Valid @NotNull FruitRequest body, @Context HttpServerRequest request) {
        String name = body.name();
        return client.withTransaction(tx -> rejectTaken(tx, name, null)
                        .chain(() -> tx.preparedQuery("INSERT INTO fruits (name) VALUES ($1) RETURNING id, name")
                                .execute(Tuple.of(name))))
                .onFailure(SqlErrors::isUniqueViolation).transform(e -> duplicate(name))
                .map(rows -> {
                    FruitJson fruit = FruitJson.of(rows.iterator().next());
                    // The path the client used (/fruits or /reactive/fruits), so Location names its own API.
                    return Response.created(UriBuilder.fromPath(request.path()).path("{id}").build(fruit.id()))
                            .entity(fruit)
                            .build();
                });
    }

    @PUT
    @Path("{id}")
    public Uni<FruitJson> update(@RestPath Long id, @Valid @NotNull FruitRequest body) {
        String name = body.name();
        // Same order of checks as the imperative resource: unknown id (404) before a taken name (409).
        return client.withTransaction(tx -> tx.preparedQuery("SELECT id, name FROM fruits WHERE id = $1")
                        .execute(Tuple.of(id))
                        .map(rows -> only(rows, id))
                        .chain(() -> rejectTaken(tx, name, id))
                        .chain(() -> tx.preparedQuery("UPDATE fruits SET name = $1 WHERE id = $2 RETURNING id, name")
                                .execute(Tuple.of(name, id))))
                .onFailure(SqlErrors::isUniqueViolation).transform(e -> duplicate(name))
                .map(rows -> only(rows, id));
    }

    @DELETE
    @Path("{id}")
    public Uni<Response> delete(@RestPath Long id) {
        return client.preparedQuery("DELETE FROM fruits WHERE id = $1").execute(Tuple.of(id))
                .map(result -> {
                    if (result.rowCount() == 0) {
                        throw notFound(id);
                    }
                    return Response.noContent().build();
                });
    }

    /** Fails with 409 when another fruit (any but {@code exceptId}, if given) already has the name. */
    private static Uni<Void> rejectTaken(SqlConnection tx, String name, Long exceptId) {
        Uni<RowSet<Row>> taken = exceptId == null
                ? tx.preparedQuery("SELECT 1 FROM fruits WHERE name = $1").execute(Tuple.of(name))
                : tx.preparedQuery("SELECT 1 FROM fruits WHERE name = $1 AND id <> $2").execute(Tuple.of(name, exceptId));
        return taken.map(rows -> {
            if (rows.size() > 0) {
                throw duplicate(name);
            }
            return null;
        });
    }

    private static FruitJson only(RowSet<Row> rows, Long id) {
        if (rows.size() == 0) {
            throw notFound(id);
        }
        return FruitJson.of(rows.iterator().next());
    }

    private static NotFoundException notFound(Long id) {
        return new NotFoundException("Fruit " + id + " not found");
    }

    private static DuplicateException duplicate(String name) {
        return new DuplicateException("Fruit '" + name + "' already exists");
    }
}
