package dev.perflab.springwebflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class PerflabWebfluxApplication {

    public static void main(String[] args) {
        SpringApplication.run(PerflabWebfluxApplication.class, args);
    }
}
