package dev.perflab.springwebflux.todo;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import reactor.core.publisher.Mono;

@RestController
public class TodoController {

    private final TodoRepository todos;

    public TodoController(TodoRepository todos) {
        this.todos = todos;
    }

    @GetMapping("/todos")
    public Mono<List<Todo>> list() {
        return todos.findAllWithUserAndCategories();
    }
}
