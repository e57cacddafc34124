package dev.perflab.springboot.todo;

import java.util.LinkedHashSet;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.JoinTable;
import jakarta.persistence.ManyToMany;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;

@Entity
@Table(name = "todos")
@JsonPropertyOrder({"id", "title", "completed", "order", "user", "categories"})
public class Todo {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(name = "title", nullable = false, length = 200)
    private String title;

    @Column(name = "completed", nullable = false)
    private boolean completed;

    // "order" is an SQL keyword, hence the column name; the JSON keeps the contract's name.
    @Column(name = "sort_order", nullable = false)
    private int sortOrder;

    // Lazy by default; the list query fetch-joins it so no proxy ever reaches the JSON writer.
    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "user_id", nullable = false)
    private User user;

    @ManyToMany
    @JoinTable(name = "todo_categories",
            joinColumns = @JoinColumn(name = "todo_id"),
            inverseJoinColumns = @JoinColumn(name = "category_id"))
    @OrderBy("id")
    private Set<Category> categories = new LinkedHashSet<>();

    protected Todo() {
    }

    public Long getId() {
        return id;
    }

    public String getTitle() {
        return title;
    }

    public boolean isCompleted() {
        return completed;
    }

    @JsonProperty("order")
    public int getSortOrder() {
        return sortOrder;
    }

    public User getUser() {
        return user;
    }

    public Set<Category> getCategories() {
        return categories;
    }
}
