package dev.perflab.kt2020

/** Which KT-2020 service runs: the blog's code as published, or the same code without its three choices. */
enum class Variant(val key: String) {
    AS_PUBLISHED("as-published"),
    FIXED("fixed");

    companion object {
        fun parse(key: String): Variant = entries.firstOrNull { it.key == key }
            ?: throw IllegalArgumentException("KT2020_VARIANT must be one of ${entries.map { it.key }}, got '$key'")
    }
}
