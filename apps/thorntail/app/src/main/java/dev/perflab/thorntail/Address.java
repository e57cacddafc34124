package dev.perflab.thorntail;

import javax.persistence.Column;
import javax.persistence.Embeddable;

/** A store's address: columns of the stores table, embedded in Store. */
@Embeddable
public class Address {

    @Column(length = 200, nullable = false)
    private String address;

    @Column(length = 100, nullable = false)
    private String city;

    @Column(length = 100, nullable = false)
    private String country;

    public String getAddress() {
        return address;
    }

    public String getCity() {
        return city;
    }

    public String getCountry() {
        return country;
    }
}
