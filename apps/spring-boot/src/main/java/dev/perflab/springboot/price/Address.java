package dev.perflab.springboot.price;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

/** A store's address: columns of the stores table, embedded in {@link Store}. */
@Embeddable
public class Address {

    @Column(name = "address", nullable = false, length = 200)
    private String address;

    @Column(name = "city", nullable = false, length = 100)
    private String city;

    @Column(name = "country", nullable = false, length = 100)
    private String country;

    protected Address() {
    }

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
