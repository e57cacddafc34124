package dev.perflab.micronaut;

import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

/** A row of data_objects; the surrogate id stays inside, the API speaks DataPayload. */
@MappedEntity("data_objects")
public record DataObject(@Id @GeneratedValue Long id, String data) {
}
