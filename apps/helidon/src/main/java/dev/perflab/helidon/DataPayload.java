package dev.perflab.helidon;

record DataPayload(String data) {
}
