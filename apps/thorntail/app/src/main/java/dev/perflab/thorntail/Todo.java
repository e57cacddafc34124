package dev.perflab.thorntail;

import java.util.LinkedHashSet;
import java.util.Set;

import javax.persistence.Column;
import javax.persistence.Entity;
import javax.persistence.FetchType;
import javax.persistence.GeneratedValue;
import javax.persistence.GenerationType;
import javax.persistence.Id;
import javax.persistence.JoinColumn;
import javax.persistence.JoinTable;
import javax.persistence.ManyToMany;
import javax.persistence.ManyToOne;
import javax.persistence.NamedQuery;
import javax.persistence.OrderBy;
import javax.persistence.Table;

@Entity
@Table(name = "todos")
// Every todo with its user and categories in a single SQL query.
@NamedQuery(name = Todo.ALL_WITH_USER_AND_CATEGORIES,
        query = "select distinct t from Todo t"
                + " join fetch t.user"
                + " left join fetch t.categories c"
                + " order by t.sortOrder, t.id, c.id")
public class Todo {

    public static final String ALL_WITH_USER_AND_CATEGORIES = "Todo.allWithUserAndCategories";

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(length = 200, nullable = false)
    private String title;

    @Column(nullable = false)
    private boolean completed;

    // "order" is an SQL keyword, hence the column name; the JSON keeps the contract's name (getOrder).
    @Column(name = "sort_order", nullable = false)
    private int sortOrder;

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "user_id")
    private User user;

    // @OrderBy makes the set insertion-ordered and sorts it by id when loaded.
    @ManyToMany(fetch = FetchType.LAZY)
    @JoinTable(name = "todo_categories",
            joinColumns = @JoinColumn(name = "todo_id"),
            inverseJoinColumns = @JoinColumn(name = "category_id"))
    @OrderBy("id")
    private Set<Category> categories = new LinkedHashSet<>();

    public Long getId() {
        return id;
    }

    public String getTitle() {
        return title;
    }

    public boolean isCompleted() {
        return completed;
    }

    public int getOrder() {
        return sortOrder;
    }

    public User getUser() {
        return user;
    }

    public Set<Category> getCategories() {
        return categories;
    }
}
