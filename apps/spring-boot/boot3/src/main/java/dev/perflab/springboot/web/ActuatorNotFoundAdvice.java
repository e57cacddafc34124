package dev.perflab.springboot.web;

import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

/**
 * Actuator answers a path below /health that names no group (/health/foo, /health/live/foo) with
 * a 404 and an empty body; the contract wants its JSON error body for every unknown route.
 */
@ControllerAdvice
public class ActuatorNotFoundAdvice implements ResponseBodyAdvice<Object> {

    @Override
    public boolean supports(MethodParameter returnType,
            Class<? extends HttpMessageConverter<?>> converterType) {
        // Spring Boot 3.x line: Actuator's Spring MVC handlers live in actuate.endpoint.web.servlet
        // (Boot 4: boot.webmvc.actuate).
        return returnType.getDeclaringClass().getPackageName()
                .startsWith("org.springframework.boot.actuate.endpoint.web.servlet");
    }

    @Override
    public @Nullable Object beforeBodyWrite(@Nullable Object body, MethodParameter returnType,
            MediaType contentType, Class<? extends HttpMessageConverter<?>> converterType,
            ServerHttpRequest request, ServerHttpResponse response) {
        if (body == null && response instanceof ServletServerHttpResponse servlet
                && servlet.getServletResponse().getStatus() == HttpStatus.NOT_FOUND.value()) {
            response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
            return new ErrorBody(HttpStatus.NOT_FOUND.value(), "Not found: " + request.getURI().getPath());
        }
        return body;
    }
}
