package dev.perflab.kt2020

import jakarta.ws.rs.Consumes
import jakarta.ws.rs.GET
import jakarta.ws.rs.POST
import jakarta.ws.rs.Path
import jakarta.ws.rs.PathParam
import jakarta.ws.rs.Produces
import jakarta.ws.rs.core.MediaType
import jakarta.ws.rs.core.Response

/** The blog's API: GET /api/{data} (200 or 404) and POST /api with {"data": "..."} (201, or 400). */
@Path("/api")
@Produces(MediaType.APPLICATION_JSON)
class DataObjectResource(private val store: DataObjectStore) {

    @GET
    @Path("/{data}")
    fun get(@PathParam("data") data: String): Response =
        store.find(data)?.let { Response.ok(it).build() } ?: Response.status(Response.Status.NOT_FOUND).build()

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    fun post(body: DataObject?): Response {
        val data = body?.data
        if (data.isNullOrEmpty() || data.length > MAX_DATA_LENGTH) {
            return Response.status(Response.Status.BAD_REQUEST).build()
        }
        store.save(data)
        return Response.status(Response.Status.CREATED).entity(DataObject(data)).build()
    }
}
