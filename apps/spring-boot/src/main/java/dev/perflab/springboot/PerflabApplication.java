package dev.perflab.springboot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class PerflabApplication {

    public static void main(String[] args) {
        SpringApplication.run(PerflabApplication.class, args);
    }
}
