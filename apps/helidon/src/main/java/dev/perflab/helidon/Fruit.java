package dev.perflab.helidon;

record Fruit(long id, String name) {
}
