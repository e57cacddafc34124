package dev.perflab.thorntail;

import org.wildfly.swarm.Swarm;

/**
 * Thorntail's own main, plus one mark once it has deployed this service ("Thorntail is Ready").
 *
 * <p>Thorntail answers /health/ready from the moment CDI has started, which is a few hundred
 * milliseconds before the web context is registered (requests in between get 404). The readiness
 * check (DatabaseReadiness) therefore also waits for this mark. A system property is the one
 * place the deployment can see: this class runs in Thorntail's own module, not in the war's.
 */
public final class Main {

    static final String DEPLOYED = "perflab.deployed";

    private Main() {
    }

    public static void main(String... args) throws Exception {
        // Returns once the server is up and the war is deployed (it exits on a failed start).
        Swarm.main(args);
        System.setProperty(DEPLOYED, "true");
    }
}
