package dev.perflab.streamspring;

/** The stream's transformation of one record's value: the part the lab's devloop edits. */
final class Transform {
    private Transform() {
    }

    static String apply(String value) {
        return value.toUpperCase();
    }
}
