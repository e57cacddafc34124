package dev.perflab.springwebflux.todo;

import java.util.List;

/** A todo as the contract shows it: its user and its categories (ordered by id) nested. */
public record Todo(long id, String title, boolean completed, int order, User user, List<Category> categories) {

    public record User(long id, String name) {
    }

    public record Category(long id, String name) {
    }
}
