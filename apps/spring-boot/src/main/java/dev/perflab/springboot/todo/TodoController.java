package dev.perflab.springboot.todo;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class TodoController {

    private final TodoRepository todos;

    public TodoController(TodoRepository todos) {
        this.todos = todos;
    }

    // Spring Data runs the query in its own read-only transaction; the JSON is written
    // after it from fully loaded entities (open-session-in-view is off).
    @GetMapping("/todos")
    public List<Todo> list() {
        return todos.findAllWithUserAndCategories();
    }
}
