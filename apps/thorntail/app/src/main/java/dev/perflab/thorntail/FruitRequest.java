package dev.perflab.thorntail;

import javax.validation.constraints.NotBlank;
import javax.validation.constraints.Size;

/** Body of POST and PUT /fruits: only the name is accepted from clients. */
public class FruitRequest {

    @NotBlank
    @Size(max = 40)
    private String name;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
