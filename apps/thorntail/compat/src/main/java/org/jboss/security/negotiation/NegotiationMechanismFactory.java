package org.jboss.security.negotiation;

import java.util.Map;

import io.undertow.security.api.AuthenticationMechanism;
import io.undertow.security.api.AuthenticationMechanismFactory;
import io.undertow.server.handlers.form.FormParserFactory;

/**
 * Stand-in for the SPNEGO mechanism factory of jboss-negotiation. WildFly's Undertow subsystem
 * creates one of these at start-up for every servlet container; it is only asked for a mechanism
 * when a deployment declares the SPNEGO auth-method, which this service never does.
 */
public class NegotiationMechanismFactory implements AuthenticationMechanismFactory {

    @Override
    public AuthenticationMechanism create(String mechanismName, FormParserFactory formParserFactory,
            Map<String, String> properties) {
        throw new UnsupportedOperationException(
                "SPNEGO authentication is not available: jboss-negotiation is replaced by a stand-in");
    }
}
