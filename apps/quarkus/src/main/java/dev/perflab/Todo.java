package dev.perflab;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
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
public class Todo extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(length = 200, nullable = false)
    public String title;

    @Column(nullable = false)
    public boolean completed;

    // "order" is an SQL keyword, hence the column name; the JSON keeps the contract's name.
    @JsonProperty("order")
    @Column(name = "sort_order", nullable = false)
    public int sortOrder;

    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "user_id")
    public User user;

    // @OrderBy makes the set insertion-ordered and sorts it by id when loaded.
    @ManyToMany(fetch = FetchType.LAZY)
    @JoinTable(name = "todo_categories",
            joinColumns = @JoinColumn(name = "todo_id"),
            inverseJoinColumns = @JoinColumn(name = "category_id"))
    @OrderBy("id")
    public Set<Category> categories = new LinkedHashSet<>();

    /** Every todo with its user and categories in a single SQL query. */
    public static List<Todo> listWithUserAndCategories() {
        return find("select distinct t from Todo t"
                + " join fetch t.user"
                + " left join fetch t.categories c"
                + " order by t.sortOrder, t.id, c.id").list();
    }
}
