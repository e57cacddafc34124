"""Quarkus dev mode on a partial Maven registry: which artifacts a failed start lacked (read from
real Maven logs), and the loop's fallback to the apps' dev-mode pins only when plain dev mode cannot
resolve (a stand-in Maven wrapper plays Maven; the real dev mode is the lab test's business)."""

from __future__ import annotations

import contextlib
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest

from perflab import apps, procs
from perflab.devloop import loops, workcopy

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


# A stand-in for the Maven wrapper: records its arguments, then either prints a log and fails (as
# Maven does when the registry lacks an artifact) or serves HTTP on the dev-mode port.
STANDIN = """\
#!{python}
import http.server, pathlib, sys
here = pathlib.Path(__file__).parent
with open(here / "invocations", "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
pinned = "-D{pins}=true" in sys.argv
log = {pinned_log!r} if pinned else {plain_log!r}
if log is not None:
    print(log)
    sys.exit(1)
port = int(next(a for a in sys.argv if a.startswith("-Dquarkus.http.port=")).split("=")[1])
http.server.ThreadingHTTPServer(("127.0.0.1", port), http.server.SimpleHTTPRequestHandler).serve_forever()
"""


@contextlib.contextmanager
def _dev_mode(tmp_path, plain_log: str | None, pinned_log: str | None):
    """(working copy, dev-mode loop) of apps/quarkus with the stand-in for its Maven wrapper."""
    with workcopy.WorkingCopy(apps.get("quarkus")) as wc:
        wc.mvnw.write_text(STANDIN.format(python=sys.executable, pins=loops.DEV_UI_PINS, plain_log=plain_log,
                                          pinned_log=pinned_log))
        loop = loops.QuarkusDev(wc, "jvm", procs.free_port(), {}, tmp_path, timeout_s=30)
        try:
            yield wc, loop
        finally:
            loop.stop()


def _invocations(wc: workcopy.WorkingCopy) -> list[str]:
    return (wc.mvnw.parent / "invocations").read_text().splitlines()


def test_dev_mode_runs_plain_where_the_registry_has_everything(workdir, tmp_path):
    with _dev_mode(tmp_path, plain_log=None, pinned_log=None) as (wc, loop):
        loop.start()
        assert loop.alive() and procs.port_in_use(loop.port)
        calls = _invocations(wc)
    assert len(calls) == 1 and loops.DEV_UI_PINS not in calls[0] and "quarkus:dev" in calls[0]
    assert loop.lacked == []


def test_dev_mode_falls_back_to_the_pins_when_the_registry_lacks_dev_artifacts(workdir, tmp_path):
    with _dev_mode(tmp_path, plain_log=DEVUI_SPI_ABSENT, pinned_log=None) as (wc, loop):
        loop.start()
        assert loop.alive() and procs.port_in_use(loop.port)
        calls = _invocations(wc)
    assert [f"-D{loops.DEV_UI_PINS}=true" in c for c in calls] == [False, True]
    assert loop.lacked == ["io.quarkus:quarkus-devui-spi:3.37.1"]
    # the failed plain start keeps a log of its own; the app log is the pinned run's
    assert "quarkus-devui-spi" not in loop.app_log.read_text()
    assert [p for p in tmp_path.glob("*-unpinned.log") if "quarkus-devui-spi" in p.read_text()]


def test_dev_mode_is_unavailable_naming_what_both_starts_lacked(workdir, tmp_path):
    with _dev_mode(tmp_path, plain_log=DEVUI_SPI_ABSENT, pinned_log=DEPLOYMENT_POM_ABSENT) as (_, loop):
        with pytest.raises(loops.Unavailable) as err:
            loop.start()
    assert err.value.message == ("dev mode cannot start: the registry lacks io.quarkus:quarkus-devui-spi:3.37.1; with "
                                 f"the app's dev-mode pins ({loops.DEV_UI_PINS}) still "
                                 "io.quarkus:quarkus-devui-deployment:3.37.1")


def test_an_app_without_the_pins_is_unavailable_after_one_start(workdir, tmp_path):
    with _dev_mode(tmp_path, plain_log=FIVE_ABSENT, pinned_log=None) as (wc, loop):
        pom = wc.app.dir / "pom.xml"
        pom.write_text(pom.read_text().replace(loops.DEV_UI_PINS, "some.other.property"))
        with pytest.raises(loops.Unavailable, match="lacks io.quarkus:quarkus-devui-spi:3.37.1, .*quarkus-jdbc-h2"):
            loop.start()
        assert len(_invocations(wc)) == 1


def test_a_start_failing_for_another_reason_is_left_to_the_callers_wait(workdir, tmp_path):
    compile_error = textwrap.dedent("""\
        [ERROR] COMPILATION ERROR :
        [ERROR] /w/src/main/java/dev/perflab/HelloResource.java:[21,16] cannot find symbol
        [INFO] BUILD FAILURE
        """)
    with _dev_mode(tmp_path, plain_log=compile_error, pinned_log=None) as (wc, loop):
        loop.start()
        assert not loop.alive()
        assert len(_invocations(wc)) == 1
