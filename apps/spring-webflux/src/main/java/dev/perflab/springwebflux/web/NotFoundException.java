package dev.perflab.springwebflux.web;

/** Signalled by the services when the addressed row does not exist; answered 404. */
public class NotFoundException extends RuntimeException {

    public NotFoundException(String message) {
        super(message);
    }
}
