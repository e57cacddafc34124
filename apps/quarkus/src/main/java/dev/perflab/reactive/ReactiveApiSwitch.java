package dev.perflab.reactive;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.regex.Pattern;

import jakarta.ws.rs.container.ContainerRequestContext;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The runtime switch between the two APIs of this one build. With {@code perflab.api=reactive}
 * (env PERFLAB_API=reactive) the contract's paths are served by the reactive resources: a request
 * for /fruits/1 is matched as /reactive/fruits/1 before resource matching. Otherwise (the default)
 * the contract's paths stay with the imperative resources, and the reactive ones answer under
 * /reactive/ only. /health is not a REST resource and is the same in both.
 */
public class ReactiveApiSwitch {

    public enum Api {
        IMPERATIVE,
        REACTIVE
    }

    private static final String PREFIX = "/reactive";
    private static final Pattern CONTRACT_PATHS = Pattern.compile("/(hello|fruits|fruit-prices|fruit-prices-joined|todos|data)(/.*)?");

    @ConfigProperty(name = "perflab.api")
    Api api;

    @ServerRequestFilter(preMatching = true)
    public void route(ContainerRequestContext request) {
        if (api != Api.REACTIVE) {
            return;
        }
        URI uri = request.getUriInfo().getRequestUri();
        String path = uri.getRawPath();
        if (CONTRACT_PATHS.matcher(path).matches()) {
            request.setRequestUri(reactive(uri, path));
        }
    }

    // setRequestUri keeps the decoded path of the URI it is given (URI.getPath()), and path
    // parameters are decoded once more when matched. So give it the raw path quoted once more (the
    // multi-argument URI constructor quotes '%'): /data/a%2Fb stays one key, "a/b", as without the switch.
    private static URI reactive(URI uri, String rawPath) {
        try {
            return new URI(uri.getScheme(), uri.getRawAuthority(), PREFIX + rawPath, uri.getRawQuery(), null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
