package dev.perflab.helidon;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

import javax.sql.DataSource;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/** /data: data objects addressed by their value. */
final class DataService implements HttpService {

    private static final int KEY_MAX = 100;

    private final DataSource dataSource;

    DataService(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.post("/", this::create)
                .any("/", Errors::methodNotAllowed)
                .get("/{key}", this::get)
                .any("/{key}", Errors::methodNotAllowed);
    }

    private static ApiException duplicate(String data) {
        return ApiException.conflict("data object " + data + " already exists");
    }

    private void get(ServerRequest req, ServerResponse res) {
        String key = req.path().pathParameters().get("key");
        String found = Database.read(dataSource, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT data FROM data_objects WHERE data = ?")) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getString(1) : null;
                }
            }
        });
        if (found == null) {
            throw ApiException.notFound("no data object " + key);
        }
        res.send(new DataPayload(found));
    }

    private void create(ServerRequest req, ServerResponse res) {
        String data = Json.text(Json.object(req), "data", KEY_MAX);
        try {
            Database.inTransaction(dataSource, c -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM data_objects WHERE data = ?")) {
                    ps.setString(1, data);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            throw duplicate(data);
                        }
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO data_objects (data) VALUES (?)")) {
                    ps.setString(1, data);
                    return ps.executeUpdate();
                }
            });
        } catch (Database.DatabaseException e) {
            if (e.uniqueViolation()) {
                throw duplicate(data);
            }
            throw e;
        }
        res.status(Status.CREATED_201);
        res.headers().set(HeaderNames.LOCATION,
                "/data/" + URLEncoder.encode(data, StandardCharsets.UTF_8).replace("+", "%20"));
        res.send(new DataPayload(data));
    }
}
