package dev.perflab.thorntail;

import javax.persistence.Column;
import javax.persistence.Entity;
import javax.persistence.GeneratedValue;
import javax.persistence.GenerationType;
import javax.persistence.Id;
import javax.persistence.NamedQuery;
import javax.persistence.Table;

/** A data object is addressed by its value; the surrogate id never leaves the service. */
@Entity
@Table(name = "data_objects")
@NamedQuery(name = DataObject.BY_DATA, query = "select d from DataObject d where d.data = :data")
public class DataObject {

    public static final String BY_DATA = "DataObject.byData";

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(length = 100, nullable = false, unique = true)
    private String data;

    protected DataObject() {
    }

    public DataObject(String data) {
        this.data = data;
    }

    public String getData() {
        return data;
    }
}
