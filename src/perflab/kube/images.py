"""Each app/mode's OCI image, built without a container engine and named by its build.

The tag is the app's build cache key (the hash of its sources, perflab.apps.building) and, for
a JVM mode, the JDK it runs on: an unchanged app keeps its tag, so a node that has the image never
pulls it again (the pods say imagePullPolicy IfNotPresent, or Never for loaded tarballs).

How an image is made (`placement.images`: "tarball" writes it under .perflab/images/ for the
user to load into the nodes, "push" sends it to placement.registry, "prebuilt" makes nothing):
- Spring Boot / WebFlux: the Jib Maven plugin (`jib:buildTar`, or `jib:build` to a registry) on
  the lab's JVM base, a `tar://` image assembled from this machine's JDK (perflab.kube.base),
  since no registry with base images is reachable; or on `placement.base_image` when one is.
  The apps' `perflab-image` Maven profile adds Jib's Spring Boot extension (no devtools inside).
- any other `java -jar ARTIFACT` mode (Quarkus's fast-jar, Thorntail's uber-jar): the lab layers
  it on the same base itself, dependencies apart from the application, as Jib would. Quarkus's
  own Jib extension only pushes to a registry or loads into a Docker daemon, never a tarball.
- a native binary (the Go reference, native images): one layer with the binary and the C
  libraries it links against.
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from perflab import jdks, procs
from perflab.apps import building
from perflab.errors import LabError
from perflab.kube import base, manifests, oci
from perflab.paths import MAVEN_WRAPPER, work_dir

JIB_PLUGIN = "com.google.cloud.tools:jib-maven-plugin:3.4.6"  # present on Maven Central's mirror here
JIB_PROFILE = "perflab-image"
APP_DIR = "/app"
Log = Callable[[str], None]


class NoImage(LabError):
    """This app/mode has no image recipe (the message says why)."""


@dataclass
class Recipe:
    kind: str  # "jib" | "java-jar" | "native"
    jdk: int | None  # the JDK a JVM mode runs on


def recipe(app, mode: str, jdk_override: int | None = None) -> Recipe:
    m = app.mode(mode)
    if m.aot or m.prepare:
        raise NoImage(f"{app.name}/{mode}: no image for a mode that prepares on this machine "
                      f"({'trains an AOT cache' if m.aot else 'runs a prepare step'} before its launches)")
    if not m.is_jvm:
        if m.command != ["{artifact}"]:
            raise NoImage(f"{app.name}/{mode}: an image runs the artifact alone; this mode's command is "
                          f"{' '.join(m.command)}")
        return Recipe("native", None)
    if [a for a in m.command if a != "{jvm_opts}"] != ["{java}", "-jar", "{artifact}"]:
        raise NoImage(f"{app.name}/{mode}: an image runs 'java -jar ARTIFACT' (JVM options through "
                      f"JAVA_TOOL_OPTIONS); this mode's command is {' '.join(m.command)}")
    jdk = jdk_override or m.jdk or app.build_jdk
    if jdk is None:
        raise NoImage(f"{app.name}/{mode}: the descriptor names no JDK for this mode")
    return Recipe("jib" if app.framework.startswith("Spring") else "java-jar", jdk)


def tag(app, mode: str, jdk_override: int | None = None) -> str:
    """The build's cache key (12 hex digits), with the JDK version for a JVM mode."""
    digest = building.source_hash(app.for_mode(mode))[:12]
    made = recipe(app, mode, jdk_override)
    if made.jdk is None:
        return digest
    version = jdks.java_version(str(jdks.require_jdk(made.jdk))) or str(made.jdk)
    return f"{digest}-jdk{version.replace('+', '_')}"


def reference(app, mode: str, registry: str, jdk_override: int | None = None) -> str:
    return manifests.image_name(app.name, mode, registry, tag(app, mode, jdk_override))


def tarball_path(image: str) -> Path:
    name = image.rsplit("/", 1)[-1].replace(":", "-")
    return work_dir() / "images" / f"{name}.tar"


@dataclass
class Built:
    image: str
    tarball: Path | None  # None: pushed to the registry


def build(app, mode: str, *, images: str, registry: str, base_image: str = "", jdk_override: int | None = None,
          log: Log = print) -> Built:
    """Make app/mode's image: a tarball (images = "tarball") or pushed (images = "push"). An
    unchanged build's tarball is reused."""
    made = recipe(app, mode, jdk_override)
    image = reference(app, mode, registry, jdk_override)
    push = images == "push"
    out = tarball_path(image)
    if not push and out.is_file():
        log(f"{app.name}/{mode}: image {image} unchanged since the last build: {out}")
        return Built(image, out)
    built_app = app.for_mode(mode)
    building.build(built_app, log=log)
    if made.kind == "jib":
        _jib(built_app, image, made.jdk, out, push=push, base_image=base_image, log=log)
    elif push:
        raise not_pushed(f"{app.name}/{mode}", image)
    elif made.kind == "java-jar":
        _java_jar(built_app, image, made.jdk, out)
    else:
        native_image(built_app.artifact_path, image, out, app.name, ports=[manifests.CONTAINER_PORT])
    if push:
        log(f"{app.name}/{mode}: pushed {image}")
        return Built(image, None)
    return written(out, image, f"{app.name}/{mode}", log)


def not_pushed(what: str, image: str) -> LabError:
    return LabError(f"{what}: the lab pushes only Jib's images (Spring apps) to a registry",
                    fix=f"write it as a tarball (placement.images = \"tarball\") and push that: "
                        f"crane push FILE {image}, or skopeo copy docker-archive:FILE docker://{image}")


def written(out: Path, image: str, what: str, log: Log) -> Built:
    oci.inspect(out)  # what a runtime checks on import: digests, sizes, diff_ids
    log(f"{what}: image {image} written to {out} ({out.stat().st_size / 1e6:.0f} MB)")
    return Built(image, out)


def jib_command(app, image: str, base: str, out: Path, *, push: bool) -> list[str]:
    """The Jib Maven plugin's argv, run in the app's folder after its build."""
    argv = [str(MAVEN_WRAPPER), "-B", "-q", f"-P{JIB_PROFILE}", f"{JIB_PLUGIN}:{'build' if push else 'buildTar'}",
            f"-Djib.from.image={base}", f"-Djib.to.image={image}",
            f"-Djib.container.ports={manifests.CONTAINER_PORT}"]
    return argv if push else [*argv, f"-Djib.outputPaths.tar={out}"]


def _jib(app, image: str, jdk: int, out: Path, *, push: bool, base_image: str, log: Log) -> None:
    base_ref = base_image or f"tar://{base.jvm_base(jdk)}"
    argv = jib_command(app, image, base_ref, out, push=push)
    out.parent.mkdir(parents=True, exist_ok=True)
    log_path = work_dir() / "logs" / f"image-{app.build_key}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log(f"{app.name}: building image {image} with Jib ({' '.join(argv[3:5])}); log: {log_path}")
    with open(log_path, "wb") as f:  # Ctrl-C reaches Maven too (same process group), run() reaps it
        rc = subprocess.run(argv, cwd=app.dir, env=building.build_env(app), stdout=f, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL).returncode
    if rc != 0:
        raise LabError(f"{app.name}: Jib could not build {image} (exit {rc})", details=procs.tail(log_path, 25),
                       fix=f"see {log_path}")


def _java_jar(app, image: str, jdk: int, out: Path) -> None:
    """`java -jar` on the lab's JVM base: a Quarkus fast-jar's lib/ in a layer of its own (it
    changes less often than the application), the rest in the last layer."""
    base_layer, version = base.jvm_base_layer(jdk)
    artifact = app.artifact_path
    root = artifact.parent if artifact.name == "quarkus-run.jar" else None
    with tempfile.TemporaryDirectory(dir=base.images_dir()) as work:
        if root is not None:
            deps = oci.tree(root / "lib", f"{APP_DIR}/lib") if (root / "lib").is_dir() else []
            rest = [e for e in oci.tree(root, APP_DIR) if not _under(e.path, f"{APP_DIR}/lib")]
            layers = [oci.write_layer(deps, Path(work)), oci.write_layer(rest, Path(work))]
        else:
            layers = [oci.write_layer([oci.Entry(f"{APP_DIR}/{artifact.name}", source=artifact)], Path(work))]
        config = oci.ImageConfig(entrypoint=["java", "-jar", f"{APP_DIR}/{artifact.name}"], env=dict(base.JVM_ENV),
                                 working_dir=APP_DIR, ports=[manifests.CONTAINER_PORT])
        oci.write_image(out, image, [base_layer, *layers], config,
                        history=[base.jvm_history(version), f"perflab: {app.name} dependencies",
                                 f"perflab: {app.name} ({artifact.name})"])


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def native_image(binary: Path, image: str, out: Path, what: str, ports: list[int] | None = None,
                 user: str = "") -> None:
    """A native executable's image: one layer with it at /app/<name> and the C libraries it links."""
    at = f"{APP_DIR}/{binary.name}"
    with tempfile.TemporaryDirectory(dir=base.images_dir()) as work:
        layer = base.native_layer(binary, at, Path(work))
        oci.write_image(out, image, [layer], oci.ImageConfig(entrypoint=[at], working_dir=APP_DIR, ports=ports or [],
                                                                user=user),
                        history=[f"perflab: {what} binary and the C libraries it links"])
