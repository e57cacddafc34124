package dev.perflab.helidon;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** A todo with its user and its categories (ordered by id). */
@JsonPropertyOrder({"id", "title", "completed", "order", "user", "categories"})
record Todo(long id, String title, boolean completed, int order, User user, List<Category> categories) {

    record User(long id, String name) {
    }

    record Category(long id, String name) {
    }
}
