package dev.perflab.springwebflux.data;

import com.fasterxml.jackson.annotation.JsonIgnore;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

/** A data object is addressed by its value; the surrogate id stays out of the JSON. */
@Table("data_objects")
public class DataObject {

    @Id
    @JsonIgnore
    private Long id;

    private String data;

    protected DataObject() {
    }

    public DataObject(String data) {
        this.data = data;
    }

    public Long getId() {
        return id;
    }

    public String getData() {
        return data;
    }
}
