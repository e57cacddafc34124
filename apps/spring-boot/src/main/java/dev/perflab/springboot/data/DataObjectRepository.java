package dev.perflab.springboot.data;

import java.util.Optional;

import org.springframework.data.jpa.repository.JpaRepository;

public interface DataObjectRepository extends JpaRepository<DataObject, Long> {

    Optional<DataObject> findByData(String data);

    boolean existsByData(String data);
}
