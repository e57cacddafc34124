package dev.perflab.thorntail;

import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/** The contract's error body: {"status": N, "error": "..."}. */
public class ErrorBody {

    private final int status;
    private final String error;

    public ErrorBody(int status, String error) {
        this.status = status;
        this.error = error;
    }

    public int getStatus() {
        return status;
    }

    public String getError() {
        return error;
    }

    static Response.ResponseBuilder response(Response.StatusType status, String error) {
        return Response.status(status)
                .entity(new ErrorBody(status.getStatusCode(), error))
                .type(MediaType.APPLICATION_JSON_TYPE);
    }
}
