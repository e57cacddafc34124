package dev.perflab;

import java.util.Optional;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A data object is addressed by its value; the surrogate id never leaves the service. */
@Entity
@Table(name = "data_objects")
public class DataObject extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(length = 100, nullable = false, unique = true)
    public String data;

    public static Optional<DataObject> findByData(String data) {
        return find("data", data).firstResultOptional();
    }
}
