package dev.perflab.thorntail;

import java.util.List;

import javax.enterprise.context.ApplicationScoped;
import javax.persistence.EntityManager;
import javax.persistence.PersistenceContext;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;

@Path("/todos")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class TodoResource {

    @PersistenceContext
    EntityManager em;

    @GET
    public List<Todo> list() {
        return em.createNamedQuery(Todo.ALL_WITH_USER_AND_CATEGORIES, Todo.class).getResultList();
    }
}
