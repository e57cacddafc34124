"""What the devloop scenario needs beyond the builds, for `perflab doctor`: the dev-mode artifacts
Maven resolves on first use (a registry that lacks them makes dev mode "unavailable", not a
failure), the Kafka broker's jars and a writable place for working copies."""

from __future__ import annotations

import os
from pathlib import Path

from perflab import apps, kafka
from perflab.checks import Check
from perflab.paths import work_dir

# artifacts the dev loops load only in development (never in a build): (group, artifact, version
# taken from which app)
DEV_ARTIFACTS = (
    ("io.quarkus", "quarkus-devui-spi", "quarkus"),
    ("io.quarkus", "quarkus-devui-deployment", "quarkus"),
    ("io.quarkus", "quarkus-devui-resources", "quarkus"),
    ("org.springframework.boot", "spring-boot-devtools", "spring-boot"),
)


def _local_repo() -> Path:
    return Path(os.environ.get("MAVEN_REPO_LOCAL") or Path.home() / ".m2" / "repository")


def missing_dev_artifacts() -> list[str]:
    """group:artifact:version of the dev artifacts not in the local Maven repository yet."""
    try:
        found = apps.discover()
    except Exception:  # a broken descriptor is doctor's app check's business, not this one's
        return []
    missing = []
    for group, artifact, app in DEV_ARTIFACTS:
        if app not in found:
            continue
        version = found[app].framework_version
        # the jar, not the folder: a failed download leaves a folder with *.lastUpdated markers
        if not (_local_repo() / group.replace(".", "/") / artifact / version / f"{artifact}-{version}.jar").exists():
            missing.append(f"{group}:{artifact}:{version}")
    return missing


def checks() -> list:
    out = []
    missing = missing_dev_artifacts()
    if missing:
        out.append(Check("devloop: dev-mode artifacts", False,
                         f"not in the local Maven repository yet: {', '.join(missing)}; the devloop resolves them on "
                         "first use; where the registry lacks Quarkus's Dev UI pieces, dev mode starts again with the "
                         "app's dev-mode pins (the Dev UI at the nearest release the registry has) and is recorded "
                         "as unavailable, naming what is missing, only when that fails too",
                         "nothing to do where Maven Central is complete; else add them to your Maven mirror",
                         required=False))
    else:
        out.append(Check("devloop: dev-mode artifacts", True, "Quarkus dev mode and Spring Boot DevTools artifacts "
                         "are in the local Maven repository", required=False))
    lib = kafka.jars_dir()
    have = (lib / ".complete").exists()
    out.append(Check("devloop: Kafka broker", have,
                     f"Apache Kafka {kafka.KAFKA_VERSION} jars in {lib}" if have else
                     f"Apache Kafka {kafka.KAFKA_VERSION} is resolved from Maven Central (about 45 jars) before the "
                     "first devloop with stream apps",
                     f"nothing to do where Maven Central is reachable; the registry must serve "
                     f"org.apache.kafka:kafka_{kafka.SCALA}:{kafka.KAFKA_VERSION}", required=False))
    writable = os.access(work_dir(), os.W_OK)
    out.append(Check("devloop: working copies", writable, f"edits go to copies under {work_dir() / 'devloop'}",
                     "make the work directory writable or set PERFLAB_WORKDIR", required=False))
    return out
