package dev.perflab;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Requests that Quarkus REST does not own, such as unknown paths (/nope) or the health endpoints,
 * are answered by the Vert.x router, whose own errors are plain text. Here they get the same JSON
 * error body as the resources' (see ErrorMappers).
 */
@ApplicationScoped
public class RouteErrors {

    void install(@Observes Router router) {
        // SmallRye Health answers any method; the contract's health endpoints are GET only.
        router.route("/health/*").order(Integer.MIN_VALUE).handler(ctx -> {
            HttpMethod method = ctx.request().method();
            if (method == HttpMethod.GET || method == HttpMethod.HEAD) {
                ctx.next();
            } else {
                respond(ctx, 405, "Method Not Allowed");
            }
        });
        router.errorHandler(404, ctx -> respond(ctx, 404, "Not Found"));
        router.errorHandler(405, ctx -> respond(ctx, 405, "Method Not Allowed"));
    }

    private static void respond(RoutingContext ctx, int status, String error) {
        if (ctx.response().ended()) {
            return;
        }
        ctx.response()
                .setStatusCode(status)
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(new JsonObject().put("status", status).put("error", error).encode());
    }
}
