package dev.perflab.kt2020

import org.springframework.http.HttpStatus
import org.springframework.http.MediaType
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RestController

/** The blog's API: GET /api/{data} (200 or 404) and POST /api with {"data": "..."} (201, or 400). */
@RestController
@RequestMapping("/api", produces = [MediaType.APPLICATION_JSON_VALUE])
class DataObjectController(private val store: DataObjectStore) {

    @GetMapping("/{data}")
    fun get(@PathVariable data: String): ResponseEntity<DataObject> =
        store.find(data)?.let { ResponseEntity.ok(it) } ?: ResponseEntity.notFound().build()

    @PostMapping(consumes = [MediaType.APPLICATION_JSON_VALUE])
    fun post(@RequestBody(required = false) body: DataObject?): ResponseEntity<DataObject> {
        val data = body?.data
        if (data.isNullOrEmpty() || data.length > MAX_DATA_LENGTH) {
            return ResponseEntity.badRequest().build()
        }
        store.save(data)
        return ResponseEntity.status(HttpStatus.CREATED).body(DataObject(data))
    }
}
