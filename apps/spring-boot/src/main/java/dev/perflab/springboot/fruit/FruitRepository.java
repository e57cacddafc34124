package dev.perflab.springboot.fruit;

import java.util.List;

import org.springframework.data.jpa.repository.JpaRepository;

public interface FruitRepository extends JpaRepository<Fruit, Long> {

    List<Fruit> findAllByOrderByNameAsc();

    boolean existsByName(String name);
}
