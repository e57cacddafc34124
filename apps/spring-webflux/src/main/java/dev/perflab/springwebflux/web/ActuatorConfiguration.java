package dev.perflab.springwebflux.web;

import java.util.List;

import org.springframework.boot.actuate.endpoint.ApiVersion;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;

@Configuration(proxyBeanMethods = false)
public class ActuatorConfiguration {

    // Plain application/json first, so /health/* answers a client that accepts anything
    // (Accept: */*) with the same media type as every other implementation.
    @Bean
    EndpointMediaTypes endpointMediaTypes() {
        return new EndpointMediaTypes(List.of(MediaType.APPLICATION_JSON_VALUE,
                ApiVersion.V3.getProducedMimeType().toString(),
                ApiVersion.V2.getProducedMimeType().toString()));
    }
}
