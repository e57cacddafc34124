package dev.perflab.springwebflux.web;

/** Signalled by the services when a unique value is already taken; answered 409. */
public class ConflictException extends RuntimeException {

    public ConflictException(String message) {
        super(message);
    }
}
