package dev.perflab.thorntail;

/** A write that would break a unique name or key; answered with 409. */
public class DuplicateException extends RuntimeException {

    public DuplicateException(String message) {
        super(message);
    }
}
