package dev.perflab.helidon;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/** GET /todos: todos, their users and categories in one query (the contract's fetch join). */
final class TodoService implements HttpService {

    private static final String QUERY = """
            SELECT t.id, t.title, t.completed, t.sort_order, u.id, u.name, c.id, c.name
            FROM todos t
            JOIN users u ON u.id = t.user_id
            LEFT JOIN todo_categories tc ON tc.todo_id = t.id
            LEFT JOIN categories c ON c.id = tc.category_id
            ORDER BY t.sort_order, t.id, c.id""";

    private final DataSource dataSource;

    TodoService(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list)
                .any("/", Errors::methodNotAllowed);
    }

    private void list(ServerRequest req, ServerResponse res) {
        List<Todo> todos = Database.read(dataSource, c -> {
            try (PreparedStatement ps = c.prepareStatement(QUERY); ResultSet rs = ps.executeQuery()) {
                Map<Long, Todo> byId = new LinkedHashMap<>();
                while (rs.next()) {
                    long id = rs.getLong(1);
                    Todo todo = byId.get(id);
                    if (todo == null) {
                        todo = new Todo(id, rs.getString(2), rs.getBoolean(3), rs.getInt(4),
                                new Todo.User(rs.getLong(5), rs.getString(6)), new ArrayList<>());
                        byId.put(id, todo);
                    }
                    long categoryId = rs.getLong(7);
                    if (!rs.wasNull()) {
                        todo.categories().add(new Todo.Category(categoryId, rs.getString(8)));
                    }
                }
                return new ArrayList<>(byId.values());
            }
        });
        res.send(todos);
    }
}
