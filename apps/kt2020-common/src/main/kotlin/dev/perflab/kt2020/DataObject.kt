package dev.perflab.kt2020

/** The blog's payload, `{"data": "..."}`; a default for every field keeps a no-argument constructor for Jackson. */
class DataObject(var data: String? = null)

/** Longest value the table's DATA VARCHAR(100) holds: longer input is the client's error (400), not a 500. */
const val MAX_DATA_LENGTH = 100
