package dev.perflab.micronaut;

import java.util.Comparator;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.sql.JoinTable;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.MappedProperty;
import io.micronaut.data.annotation.Relation;
import io.micronaut.data.annotation.sql.JoinColumn;
import io.micronaut.serde.annotation.Serdeable;

/**
 * A todo with its user (many-to-one) and categories (many-to-many through todo_categories).
 * "order" is an SQL keyword, hence the column sort_order; the JSON keeps the contract's name.
 */
@Serdeable
@MappedEntity("todos")
public record Todo(
        @Id Long id,
        String title,
        boolean completed,
        @JsonProperty("order") @MappedProperty("sort_order") int sortOrder,
        @Relation(Relation.Kind.MANY_TO_ONE) User user,
        @Relation(Relation.Kind.MANY_TO_MANY)
        @JoinTable(name = "todo_categories",
                joinColumns = @JoinColumn(name = "todo_id"),
                inverseJoinColumns = @JoinColumn(name = "category_id"))
        // Serde leaves empty collections out by default; the contract always has the key.
        @JsonInclude(JsonInclude.Include.ALWAYS) List<Category> categories) {

    /** The contract orders a todo's categories by id. */
    public Todo {
        categories = categories == null ? List.of()
                : categories.stream().sorted(Comparator.comparing(Category::id)).toList();
    }
}
