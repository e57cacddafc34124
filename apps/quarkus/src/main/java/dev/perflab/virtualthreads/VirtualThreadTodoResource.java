package dev.perflab.virtualthreads;

import java.util.List;

import dev.perflab.Todo;
import io.quarkus.arc.properties.IfBuildProperty;
import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** dev.perflab.TodoResource on virtual threads (see package-info). */
@IfBuildProperty(name = "perflab.virtual-threads", stringValue = "true")
@RunOnVirtualThread
@Path("/todos")
@Produces(MediaType.APPLICATION_JSON)
public class VirtualThreadTodoResource {

    @GET
    public List<Todo> list() {
        return Todo.listWithUserAndCategories();
    }
}
