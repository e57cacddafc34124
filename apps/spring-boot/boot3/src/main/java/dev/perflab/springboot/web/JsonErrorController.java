package dev.perflab.springboot.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;

// Spring Boot 3.x line: ErrorController lives in boot.web.servlet.error (Boot 4: boot.webmvc.error).
import org.springframework.boot.web.servlet.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Replaces Spring Boot's BasicErrorController, so errors raised outside Spring MVC (by Tomcat or
 * a filter) and a direct request to /error also get the contract's JSON body instead of
 * {"timestamp", "path", ...}.
 */
@RestController
public class JsonErrorController implements ErrorController {

    @RequestMapping("${server.error.path:/error}")
    public ResponseEntity<Object> error(HttpServletRequest request) {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        if (code == null) {
            // Not an error dispatch: someone asked for /error itself, which is no resource.
            return ErrorBody.response(HttpStatus.NOT_FOUND, "Not found: " + request.getRequestURI());
        }
        HttpStatus status = HttpStatus.resolve((Integer) code);
        if (status == null || !status.isError()) {
            status = HttpStatus.INTERNAL_SERVER_ERROR;
        }
        return ErrorBody.response(status, status.getReasonPhrase());
    }
}
