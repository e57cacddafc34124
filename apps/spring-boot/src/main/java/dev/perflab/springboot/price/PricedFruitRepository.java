package dev.perflab.springboot.price;

import java.util.List;
import java.util.Optional;

import org.springframework.data.domain.Sort;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;

/** Read-only: only the queries the endpoints use (Spring Data's "selectively exposing CRUD methods"). */
public interface PricedFruitRepository extends Repository<PricedFruit, Long> {

    List<PricedFruit> findAll(Sort sort);

    Optional<PricedFruit> findByName(String name);

    /** Every fruit with its prices and their stores in a single SQL query (left fetch joins). */
    @Query("""
            select f from PricedFruit f
            left join fetch f.storePrices p
            left join fetch p.store
            order by f.name""")
    List<PricedFruit> findAllWithStorePrices();
}
