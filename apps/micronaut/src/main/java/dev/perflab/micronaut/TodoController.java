package dev.perflab.micronaut;

import java.util.List;

import io.micronaut.data.model.Sort;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;

@Controller("/todos")
@ExecuteOn(TaskExecutors.BLOCKING)
public class TodoController {

    private static final Sort ORDER = Sort.of(Sort.Order.asc("sortOrder"), Sort.Order.asc("id"));

    private final TodoRepository todos;

    public TodoController(TodoRepository todos) {
        this.todos = todos;
    }

    @Get
    public List<Todo> list() {
        return todos.findAll(ORDER);
    }
}
