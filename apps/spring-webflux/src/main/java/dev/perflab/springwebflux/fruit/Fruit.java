package dev.perflab.springwebflux.fruit;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

@Table("fruits")
@JsonPropertyOrder({"id", "name"})
public class Fruit {

    // BIGSERIAL column: null until inserted, then the database's id.
    @Id
    private Long id;

    private String name;

    protected Fruit() {
    }

    public Fruit(String name) {
        this.name = name;
    }

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
