package dev.perflab.helidon;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * /fruits: the CRUD service. Reads run in auto-commit, each write in one transaction; a write checks
 * for a duplicate name (and a rename for the fruit) first, as the other apps do, so each path sends
 * the database the same statements as theirs.
 */
final class FruitService implements HttpService {

    private static final int NAME_MAX = 40;

    private final DataSource dataSource;

    FruitService(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list)
                .post("/", this::create)
                .any("/", Errors::methodNotAllowed)
                .get("/{id}", this::get)
                .put("/{id}", this::update)
                .delete("/{id}", this::delete)
                .any("/{id}", Errors::methodNotAllowed);
    }

    private void list(ServerRequest req, ServerResponse res) {
        List<Fruit> fruits = Database.read(dataSource, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id, name FROM fruits ORDER BY name");
                 ResultSet rs = ps.executeQuery()) {
                List<Fruit> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(new Fruit(rs.getLong(1), rs.getString(2)));
                }
                return rows;
            }
        });
        res.send(fruits);
    }

    private void get(ServerRequest req, ServerResponse res) {
        long id = id(req);
        Fruit fruit = Database.read(dataSource, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id, name FROM fruits WHERE id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? new Fruit(rs.getLong(1), rs.getString(2)) : null;
                }
            }
        });
        if (fruit == null) {
            throw unknown(id);
        }
        res.send(fruit);
    }

    private void create(ServerRequest req, ServerResponse res) {
        String name = Json.text(Json.object(req), "name", NAME_MAX);
        Fruit fruit = write(name, () -> Database.inTransaction(dataSource, c -> {
            if (nameTaken(c, name, null)) {
                throw duplicate(name);
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO fruits (name) VALUES (?) RETURNING id")) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new Fruit(rs.getLong(1), name);
                }
            }
        }));
        res.status(Status.CREATED_201);
        res.headers().set(HeaderNames.LOCATION, "/fruits/" + fruit.id());
        res.send(fruit);
    }

    private void update(ServerRequest req, ServerResponse res) {
        long id = id(req);
        String name = Json.text(Json.object(req), "name", NAME_MAX);
        Fruit fruit = write(name, () -> Database.inTransaction(dataSource, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM fruits WHERE id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw unknown(id);
                    }
                }
            }
            if (nameTaken(c, name, id)) {
                throw duplicate(name);
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE fruits SET name = ? WHERE id = ?")) {
                ps.setString(1, name);
                ps.setLong(2, id);
                ps.executeUpdate();
                return new Fruit(id, name);
            }
        }));
        res.send(fruit);
    }

    private void delete(ServerRequest req, ServerResponse res) {
        long id = id(req);
        int deleted = Database.inTransaction(dataSource, c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM fruits WHERE id = ?")) {
                ps.setLong(1, id);
                return ps.executeUpdate();
            }
        });
        if (deleted == 0) {
            throw unknown(id);
        }
        res.status(Status.NO_CONTENT_204);
        res.send();
    }

    /** The duplicate check inside the write's transaction (the unique constraint still backs it). */
    private static boolean nameTaken(Connection c, String name, Long exceptId) throws SQLException {
        String sql = exceptId == null
                ? "SELECT 1 FROM fruits WHERE name = ?"
                : "SELECT 1 FROM fruits WHERE name = ? AND id <> ?";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, name);
            if (exceptId != null) {
                ps.setLong(2, exceptId);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static ApiException duplicate(String name) {
        return ApiException.conflict("a fruit named " + name + " already exists");
    }

    private static Fruit write(String name, java.util.function.Supplier<Fruit> work) {
        try {
            return work.get();
        } catch (Database.DatabaseException e) {
            if (e.uniqueViolation()) {
                throw duplicate(name);
            }
            throw e;
        }
    }

    /** A non-numeric id, or one beyond a long, names no fruit: 404. */
    private static long id(ServerRequest req) {
        String raw = req.path().pathParameters().get("id");
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw ApiException.notFound("no fruit with id " + raw);
        }
    }

    private static ApiException unknown(long id) {
        return ApiException.notFound("no fruit with id " + id);
    }
}
