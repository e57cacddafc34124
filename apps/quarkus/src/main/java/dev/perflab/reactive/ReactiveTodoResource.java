package dev.perflab.reactive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

@Path("/reactive/todos")
@Produces(MediaType.APPLICATION_JSON)
public class ReactiveTodoResource {

    public record UserJson(long id, String name) {
    }

    public record CategoryJson(long id, String name) {
    }

    @JsonPropertyOrder({"id", "title", "completed", "order", "user", "categories"})
    public record TodoJson(long id, String title, boolean completed, int order, UserJson user,
            List<CategoryJson> categories) {
    }

    // One query, as the imperative fetch join: one row per todo and category (none: NULL category).
    private static final String TODOS_WITH_USER_AND_CATEGORIES = """
            SELECT t.id, t.title, t.completed, t.sort_order, u.id AS user_id, u.name AS user_name,
                   c.id AS category_id, c.name AS category_name
            FROM todos t
            JOIN users u ON u.id = t.user_id
            LEFT JOIN todo_categories tc ON tc.todo_id = t.id
            LEFT JOIN categories c ON c.id = tc.category_id
            ORDER BY t.sort_order, t.id, c.id""";

    @Inject
    Pool client;

    @GET
    public Uni<List<TodoJson>> list() {
        return client.query(TODOS_WITH_USER_AND_CATEGORIES).execute().map(rows -> {
            // Rows arrive ordered by todo, so insertion order is the contract's order.
            Map<Long, TodoJson> todos = new LinkedHashMap<>();
            for (Row row : rows) {
                TodoJson todo = todos.computeIfAbsent(row.getLong("id"), id -> new TodoJson(id,
                        row.getString("title"), row.getBoolean("completed"), row.getInteger("sort_order"),
                        new UserJson(row.getLong("user_id"), row.getString("user_name")), new ArrayList<>()));
                Long categoryId = row.getLong("category_id");
                if (categoryId != null) {
                    todo.categories().add(new CategoryJson(categoryId, row.getString("category_name")));
                }
            }
            return List.copyOf(todos.values());
        });
    }
}
