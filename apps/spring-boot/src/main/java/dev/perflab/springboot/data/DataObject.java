package dev.perflab.springboot.data;

import com.fasterxml.jackson.annotation.JsonIgnore;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A data object is addressed by its value; the surrogate id stays out of the JSON. */
@Entity
@Table(name = "data_objects")
public class DataObject {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    @JsonIgnore
    private Long id;

    @Column(name = "data", nullable = false, unique = true, length = 100)
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
