"""Quarkus dev mode on a partial Maven registry: which artifacts a failed start lacked, read from
real Maven logs, and the apps' dev-mode pins (the fallback to them, with a stand-in Maven wrapper,
is tests/lab/test_devloop_devmode.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from perflab import apps
from perflab.devloop import loops

# `mvnw quarkus:dev` of apps/quarkus at 3.37.1 on a registry without quarkus-devui-spi 3.37.1 (lines
# of the real log, stack frames left out)
DEVUI_SPI_ABSENT = """\
[INFO] Invoking quarkus:3.37.1:generate-code (default) @ perflab-quarkus
Downloading from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui/3.37.1/quarkus-devui-3.37.1.jar
Downloaded from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui/3.37.1/quarkus-devui-3.37.1.jar (161 kB at 143 kB/s)
Downloading from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui/3.37.1/quarkus-devui-3.37.1.pom
Downloaded from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui/3.37.1/quarkus-devui-3.37.1.pom (2.3 kB at 8.7 kB/s)
Downloading from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui-spi/3.37.1/quarkus-devui-spi-3.37.1.pom
Downloading from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui-spi/3.37.1/quarkus-devui-spi-3.37.1.jar
[ERROR] [io.quarkus.bootstrap.resolver.maven.FailAtCompletionErrorHandler] The following errors were encountered while processing Quarkus application dependencies:
[ERROR] [io.quarkus.bootstrap.resolver.maven.FailAtCompletionErrorHandler] 1)
io.quarkus.bootstrap.resolver.maven.DeploymentInjectionException: Failed to resolve artifact io.quarkus:quarkus-devui-spi:jar:3.37.1
Caused by: org.eclipse.aether.resolution.ArtifactResolutionException: The following artifacts could not be resolved: io.quarkus:quarkus-devui-spi:jar:3.37.1 (absent): Could not find artifact io.quarkus:quarkus-devui-spi:jar:3.37.1 in central (https://repo.maven.apache.org/maven2)
Caused by: org.eclipse.aether.transfer.ArtifactNotFoundException: Could not find artifact io.quarkus:quarkus-devui-spi:jar:3.37.1 in central (https://repo.maven.apache.org/maven2)
[ERROR] Failed to execute goal io.quarkus.platform:quarkus-maven-plugin:3.37.1:dev (default-cli) on project perflab-quarkus: Quarkus code generation phase has failed: The following errors were encountered while processing Quarkus application dependencies:
[ERROR] 1) Failed to resolve artifact io.quarkus:quarkus-devui-spi:jar:3.37.1
"""
# the same with quarkus-devui-spi managed to 3.37.4: Quarkus names the Dev UI's deployment artifact,
# whose POM the registry lacks, and beside it its runtime artifact, which the registry has
DEPLOYMENT_POM_ABSENT = """\
[INFO] Invoking quarkus:3.37.1:generate-code (default) @ perflab-quarkus
Downloading from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui-deployment/3.37.1/quarkus-devui-deployment-3.37.1.pom
Downloading from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui-deployment/3.37.1/quarkus-devui-deployment-3.37.1.pom
[ERROR] [io.quarkus.bootstrap.resolver.maven.FailAtCompletionErrorHandler] The following errors were encountered while processing Quarkus application dependencies:
[ERROR] [io.quarkus.bootstrap.resolver.maven.FailAtCompletionErrorHandler] 1)
java.lang.RuntimeException: Failed to collect dependencies of io.quarkus:quarkus-devui-deployment:jar:3.37.1: either its POM could not be resolved from the available Maven repositories or the artifact does not have any dependencies while at least a dependency on the runtime artifact io.quarkus:quarkus-devui:jar:3.37.1 is expected
[ERROR] 1) Failed to collect dependencies of io.quarkus:quarkus-devui-deployment:jar:3.37.1: either its POM could not be resolved from the available Maven repositories or the artifact does not have any dependencies while at least a dependency on the runtime artifact io.quarkus:quarkus-devui:jar:3.37.1 is expected
"""
# plain Maven (`mvnw compile`) on a project needing five artifacts the registry lacks and one it has
# (io.quarkus:quarkus-devui:3.37.1); four had been looked for before, so Maven says so instead
FIVE_ABSENT = """\
[WARNING] The POM for io.quarkus:quarkus-devui-spi:jar:3.37.1 is missing, no dependency information available
[WARNING] The POM for io.quarkus:quarkus-devui-deployment:jar:3.37.1 is missing, no dependency information available
[WARNING] The POM for io.quarkus:quarkus-devui-resources:jar:3.37.1 is missing, no dependency information available
[WARNING] The POM for io.quarkus:quarkus-kafka-streams:jar:3.37.1 is missing, no dependency information available
[WARNING] The POM for io.quarkus:quarkus-jdbc-h2:jar:3.37.1 is missing, no dependency information available
[INFO] Downloading from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui-deployment/3.37.1/quarkus-devui-deployment-3.37.1.jar
[ERROR] Failed to execute goal on project multi: Could not resolve dependencies for project dev.scratch:multi:jar:1
[ERROR] dependency: io.quarkus:quarkus-devui-spi:jar:3.37.1 (compile)
[ERROR] \tio.quarkus:quarkus-devui-spi:jar:3.37.1 was not found in https://repo.maven.apache.org/maven2 during a previous attempt. This failure was cached in the local repository and resolution is not reattempted until the update interval of central has elapsed or updates are forced
[ERROR] dependency: io.quarkus:quarkus-devui-deployment:jar:3.37.1 (compile)
[ERROR] \tCould not find artifact io.quarkus:quarkus-devui-deployment:jar:3.37.1 in central (https://repo.maven.apache.org/maven2)
[ERROR] dependency: io.quarkus:quarkus-devui-resources:jar:3.37.1 (compile)
[ERROR] \tio.quarkus:quarkus-devui-resources:jar:3.37.1 was not found in https://repo.maven.apache.org/maven2 during a previous attempt. This failure was cached in the local repository and resolution is not reattempted until the update interval of central has elapsed or updates are forced
[ERROR] dependency: io.quarkus:quarkus-kafka-streams:jar:3.37.1 (compile)
[ERROR] \tio.quarkus:quarkus-kafka-streams:jar:3.37.1 was not found in https://repo.maven.apache.org/maven2 during a previous attempt. This failure was cached in the local repository and resolution is not reattempted until the update interval of central has elapsed or updates are forced
[ERROR] dependency: io.quarkus:quarkus-jdbc-h2:jar:3.37.1 (compile)
[ERROR] \tio.quarkus:quarkus-jdbc-h2:jar:3.37.1 was not found in https://repo.maven.apache.org/maven2 during a previous attempt. This failure was cached in the local repository and resolution is not reattempted until the update interval of central has elapsed or updates are forced
"""


def test_an_absent_artifact_is_named_once_however_often_the_log_names_it():
    assert loops.missing_artifacts(DEVUI_SPI_ABSENT) == ["io.quarkus:quarkus-devui-spi:3.37.1"]


def test_a_deployment_artifact_whose_pom_never_arrived_is_named_and_its_runtime_artifact_is_not():
    assert loops.missing_artifacts(DEPLOYMENT_POM_ABSENT) == ["io.quarkus:quarkus-devui-deployment:3.37.1"]


def test_a_deployment_artifact_whose_pom_arrived_is_not_named():
    # Quarkus's message also stands for a POM without dependencies: here the log shows the POM arrive
    arrived = DEPLOYMENT_POM_ABSENT.replace(
        "Downloading from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui-deployment/3.37.1/"
        "quarkus-devui-deployment-3.37.1.pom\n[ERROR]",
        "Downloaded from central: https://repo.maven.apache.org/maven2/io/quarkus/quarkus-devui-deployment/3.37.1/"
        "quarkus-devui-deployment-3.37.1.pom (3 kB at 9 kB/s)\n[ERROR]")
    assert arrived != DEPLOYMENT_POM_ABSENT
    assert loops.missing_artifacts(arrived) == []


def test_every_absent_artifact_is_named_in_the_order_maven_met_them():
    assert loops.missing_artifacts(FIVE_ABSENT) == [
        "io.quarkus:quarkus-devui-spi:3.37.1", "io.quarkus:quarkus-devui-deployment:3.37.1",
        "io.quarkus:quarkus-devui-resources:3.37.1", "io.quarkus:quarkus-kafka-streams:3.37.1",
        "io.quarkus:quarkus-jdbc-h2:3.37.1"]


@pytest.mark.parametrize("app", ["quarkus", "stream-quarkus"])
def test_the_quarkus_apps_pin_the_dev_ui_only_when_the_labs_property_asks(app):
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    pom = ET.parse(apps.get(app).dir / "pom.xml").getroot()
    pins = [p for p in pom.iterfind("m:profiles/m:profile", ns)
            if p.findtext("m:activation/m:property/m:name", namespaces=ns) == loops.DEV_UI_PINS]
    assert len(pins) == 1
    assert pins[0].find("m:activation/m:activeByDefault", ns) is None  # never in a package build
    excluded = [e.findtext("m:artifactId", namespaces=ns) for e in pins[0].iterfind(
        "m:dependencies/m:dependency[m:artifactId='quarkus-vertx-http']/m:exclusions/m:exclusion", ns)]
    assert excluded == ["quarkus-devui"]
