package dev.perflab.helidon;

import io.helidon.http.Status;

/** A client error the contract names: answered with its status and a JSON error body. */
final class ApiException extends RuntimeException {

    private final Status status;

    ApiException(Status status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    Status status() {
        return status;
    }

    static ApiException notFound(String message) {
        return new ApiException(Status.NOT_FOUND_404, message);
    }

    static ApiException badRequest(String message) {
        return new ApiException(Status.BAD_REQUEST_400, message);
    }

    static ApiException conflict(String message) {
        return new ApiException(Status.CONFLICT_409, message);
    }
}
