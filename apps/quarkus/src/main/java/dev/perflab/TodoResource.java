package dev.perflab;

import java.util.List;

import io.quarkus.arc.properties.UnlessBuildProperty;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** /todos on worker threads; the virtual-threads build has VirtualThreadTodoResource instead. */
@UnlessBuildProperty(name = "perflab.virtual-threads", stringValue = "true", enableIfMissing = true)
@Path("/todos")
@Produces(MediaType.APPLICATION_JSON)
public class TodoResource {

    @GET
    public List<Todo> list() {
        return Todo.listWithUserAndCategories();
    }
}
