"""How each app's OCI image is built by its framework's own tooling, without a container engine.

Only the commands are rendered here (`perflab.kube.images.command`); the lab does not run them
yet. Jib needs the base image's manifest and layers from a registry, so these builds need a
reachable registry for the base image even when the result is a tarball.

- Quarkus: its container-image-jib extension (must be in the app's pom), pushing to the plan's
  registry; without a registry it would load into a Docker daemon, which is what the lab avoids.
- Spring Boot / Spring WebFlux: the Jib Maven plugin, invoked by its coordinates (no pom change):
  `jib:build` to the registry, or `jib:buildTar` to target/jib-image.tar for a local cluster
  (load it into the node's runtime: `ctr -n k8s.io images import`, `kind load image-archive`).
- Thorntail (an uber-jar with its own launcher) and the Go reference (ko) are not covered.
"""

from __future__ import annotations

from perflab.errors import LabError
from perflab.kube import manifests
from perflab.paths import MAVEN_WRAPPER

JIB_PLUGIN = "com.google.cloud.tools:jib-maven-plugin:3.4.6"  # present on Maven Central's mirror here
QUARKUS_JIB = "quarkus-container-image-jib"
TARBALL = "target/jib-image.tar"


def command(app, mode: str, *, registry: str, base_image: str) -> list[str]:
    """The argv (run in the app's directory) that builds app/mode's image as the Deployment names it."""
    image = manifests.image_name(app.name, mode, registry)
    if not app.modes[mode].is_jvm:
        raise LabError(f"{app.name}/{mode}: no image build for a non-JVM mode yet (ko for Go is not wired)")
    if app.framework == "Quarkus":
        if not registry:
            raise LabError(f"{app.name}: Quarkus's Jib extension builds to a registry or a Docker daemon, "
                           "not to a tarball", fix="set placement.registry")
        if QUARKUS_JIB not in (app.dir / "pom.xml").read_text():
            raise LabError(f"{app.name}: the pom lacks io.quarkus:{QUARKUS_JIB}",
                           fix=f"add it: {MAVEN_WRAPPER} quarkus:add-extension -Dextensions={QUARKUS_JIB}")
        return [str(MAVEN_WRAPPER), "-B", "package", "-DskipTests", "-Dquarkus.container-image.build=true",
                f"-Dquarkus.container-image.image={image}", f"-Dquarkus.jib.base-jvm-image={base_image}",
                "-Dquarkus.container-image.push=true"]
    if app.framework.startswith("Spring"):
        goal = "build" if registry else "buildTar"
        return [str(MAVEN_WRAPPER), "-B", "package", "-DskipTests", f"{JIB_PLUGIN}:{goal}",
                f"-Djib.from.image={base_image}", f"-Djib.to.image={image}",
                f"-Djib.container.ports={manifests.CONTAINER_PORT}"]
    raise LabError(f"{app.name}: no daemon-less image build for {app.framework} yet")
