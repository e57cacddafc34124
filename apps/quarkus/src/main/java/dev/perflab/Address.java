package dev.perflab;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

/** A store's address: columns of the stores table, embedded in Store. */
@Embeddable
public class Address {

    @Column(length = 200, nullable = false)
    public String address;

    @Column(length = 100, nullable = false)
    public String city;

    @Column(length = 100, nullable = false)
    public String country;
}
