package dev.perflab.kt2020

import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.runApplication

@SpringBootApplication
class Kt2020Application

fun main(args: Array<String>) {
    runApplication<Kt2020Application>(*args)
}
