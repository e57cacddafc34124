package dev.perflab.springwebflux.todo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Repository;

import reactor.core.publisher.Mono;

/**
 * Spring Data R2DBC maps no associations, so the todos are read with one SQL join (the fetch
 * join of the JPA apps: no query per todo) and assembled into the nested JSON shape here.
 */
@Repository
public class TodoRepository {

    // One row per todo and category; a todo without categories has one row with NULL category.
    private static final String TODOS_WITH_USER_AND_CATEGORIES = """
            SELECT t.id, t.title, t.completed, t.sort_order, u.id AS user_id, u.name AS user_name,
                   c.id AS category_id, c.name AS category_name
            FROM todos t
            JOIN users u ON u.id = t.user_id
            LEFT JOIN todo_categories tc ON tc.todo_id = t.id
            LEFT JOIN categories c ON c.id = tc.category_id
            ORDER BY t.sort_order, t.id, c.id""";

    private final DatabaseClient db;

    public TodoRepository(DatabaseClient db) {
        this.db = db;
    }

    public Mono<List<Todo>> findAllWithUserAndCategories() {
        return db.sql(TODOS_WITH_USER_AND_CATEGORIES)
                .fetch()
                .all()
                // Rows arrive ordered by todo, so insertion order is the contract's order.
                .collect(LinkedHashMap<Long, Todo>::new, TodoRepository::add)
                .map(todos -> List.copyOf(todos.values()));
    }

    private static void add(Map<Long, Todo> todos, Map<String, Object> row) {
        Todo todo = todos.computeIfAbsent((Long) row.get("id"), id -> new Todo(id,
                (String) row.get("title"), (Boolean) row.get("completed"), (Integer) row.get("sort_order"),
                new Todo.User((Long) row.get("user_id"), (String) row.get("user_name")), new ArrayList<>()));
        if (row.get("category_id") instanceof Long categoryId) {
            todo.categories().add(new Todo.Category(categoryId, (String) row.get("category_name")));
        }
    }
}
