package dev.perflab.thorntail;

import javax.validation.constraints.NotBlank;
import javax.validation.constraints.Size;

/** Request and response body of /data: {"data": key}. */
public class DataPayload {

    @NotBlank
    @Size(max = 100)
    private String data;

    public DataPayload() {
    }

    public DataPayload(String data) {
        this.data = data;
    }

    public String getData() {
        return data;
    }

    public void setData(String data) {
        this.data = data;
    }
}
