package dev.perflab.springboot.web;

import java.io.IOException;

import com.fasterxml.jackson.databind.ObjectMapper;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * Spring Boot 3.x line: what ActuatorNotFoundAdvice does on Boot 4. Actuator answers a path below
 * /health that names no group (/health/foo) with a 404 and an empty body, and Spring MVC 6.2
 * writes that empty ResponseEntity without asking any ResponseBodyAdvice; so this filter, for
 * /health paths only, gives such an empty 404 the contract's JSON error body.
 */
@Component
public class ActuatorNotFoundFilter extends OncePerRequestFilter {

    private final ObjectMapper json;

    public ActuatorNotFoundFilter(ObjectMapper json) {
        this.json = json;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !request.getRequestURI().startsWith("/health/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        ContentCachingResponseWrapper cached = new ContentCachingResponseWrapper(response);
        chain.doFilter(request, cached);
        if (cached.getStatus() == HttpStatus.NOT_FOUND.value() && cached.getContentSize() == 0) {
            response.setContentType(MediaType.APPLICATION_JSON_VALUE);
            json.writeValue(response.getOutputStream(),
                    new ErrorBody(HttpStatus.NOT_FOUND.value(), "Not found: " + request.getRequestURI()));
            return;
        }
        cached.copyBodyToResponse();
    }
}
