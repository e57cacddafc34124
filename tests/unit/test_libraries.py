"""The libraries a build bundles, read from its artifact, and what changed in them between two
versions' builds: the report by version says what else changed with a framework's version."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from perflab import results
from perflab.apps import libraries
from perflab.report import versions as by_version
from perflab.report.version_changes import also_changed
from perflab.store import Store
from perflab.version_builds import what_was_built


def _jar(coordinates: tuple[str, str, str] | None = None, *, shaded: tuple[str, str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        for group, artifact, version in [c for c in (shaded, coordinates) if c]:
            z.writestr(f"META-INF/maven/{group}/{artifact}/pom.properties",
                       f"#generated\ngroupId={group}\nartifactId={artifact}\nversion={version}\n")
    return buf.getvalue()


def _fat_jar(path: Path, jars: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("BOOT-INF/classes/app.properties", "")
        for name, content in jars.items():
            z.writestr(f"BOOT-INF/lib/{name}", content)
    return path


BOOT3 = {"jackson-databind-2.19.2.jar": _jar(("com.fasterxml.jackson.core", "jackson-databind", "2.19.2")),
         "tomcat-embed-core-10.1.48.jar": _jar(("org.apache.tomcat.embed", "tomcat-embed-core", "10.1.48")),
         "HikariCP-6.3.3.jar": _jar(("com.zaxxer", "HikariCP", "6.3.3")),
         "spring-boot-autoconfigure-3.5.7.jar": _jar(("org.springframework.boot", "spring-boot-autoconfigure", "3.5.7")),
         "unnamed-1.2.jar": _jar()}
BOOT4 = {"jackson-databind-3.1.5.jar": _jar(("tools.jackson.core", "jackson-databind", "3.1.5")),
         "tomcat-embed-core-11.0.24.jar": _jar(("org.apache.tomcat.embed", "tomcat-embed-core", "11.0.24")),
         "HikariCP-6.3.5.jar": _jar(("com.zaxxer", "HikariCP", "6.3.5")),
         "spring-boot-jackson-4.1.1.jar": _jar(("org.springframework.boot", "spring-boot-jackson", "4.1.1"),
                                              shaded=("org.other", "inside", "9.9")),
         "spring-boot-autoconfigure-4.1.1.jar": _jar(("org.springframework.boot", "spring-boot-autoconfigure", "4.1.1")),
         "unnamed-1.3.jar": _jar()}


def test_a_fat_jars_libraries_are_named_by_their_own_coordinates_else_by_their_file(tmp_path):
    found = libraries.bundled(_fat_jar(tmp_path / "app.jar", BOOT4))
    assert found["tools.jackson.core:jackson-databind"] == "3.1.5"
    assert found["org.springframework.boot:spring-boot-jackson"] == "4.1.1"  # its own pom, not the shaded one's
    assert found["unnamed"] == "1.3"
    assert "org.other:inside" not in found


def test_a_quarkus_fast_jar_is_read_from_the_lib_folder_beside_it(tmp_path):
    lib = tmp_path / "quarkus-app" / "lib" / "main"
    lib.mkdir(parents=True)
    (lib / "io.quarkus.quarkus-core-3.37.1.jar").write_bytes(_jar(("io.quarkus", "quarkus-core", "3.37.1")))
    runner = tmp_path / "quarkus-app" / "quarkus-run.jar"
    runner.write_bytes(_jar())
    assert libraries.bundled(runner) == {"io.quarkus:quarkus-core": "3.37.1"}


def test_a_native_program_bundles_nothing_to_read(tmp_path):
    binary = tmp_path / "go-reference"
    binary.write_bytes(b"\x7fELF not a jar")
    assert libraries.bundled(binary) == {}


def test_major_changes_moves_arrivals_and_departures_are_listed_and_a_patch_change_is_not(tmp_path):
    older = libraries.bundled(_fat_jar(tmp_path / "a.jar", BOOT3))
    newer = libraries.bundled(_fat_jar(tmp_path / "b.jar", BOOT4))
    found = {c.kind: [] for c in libraries.changes(older, newer)}
    for c in libraries.changes(older, newer):
        found[c.kind].append(c.text())
    assert found["moved"] == ["com.fasterxml.jackson.core:jackson-databind 2.19.2 -> "
                              "tools.jackson.core:jackson-databind 3.1.5"]
    assert "org.apache.tomcat.embed:tomcat-embed-core 10.1.48 -> org.apache.tomcat.embed:tomcat-embed-core 11.0.24" \
           in found["major"]
    assert found["added"] == ["+ org.springframework.boot:spring-boot-jackson 4.1.1"]
    assert not any("HikariCP" in text or "unnamed" in text for texts in found.values() for text in texts)


class _App:
    def __init__(self, name: str, overlay: str = "", files: tuple[str, ...] = ()):
        self.name, self.overlay, self.overlay_files = name, overlay, files


class _Build:
    def __init__(self, artifact: Path):
        self.artifact = str(artifact)


def test_a_run_records_each_versions_libraries_and_overlay_and_nothing_without_versions(tmp_path):
    a, b = _fat_jar(tmp_path / "a.jar", BOOT3), _fat_jar(tmp_path / "b.jar", BOOT4)
    builds = {"spring-boot@3.5.7": _Build(a), "spring-boot@4.1.1": _Build(b), "quarkus": _Build(a)}
    variants = {"spring-boot@3.5.7": _App("spring-boot@3.5.7", "boot3", ("pom.xml", "src/Main.java")),
                "spring-boot@4.1.1": _App("spring-boot@4.1.1"), "quarkus": _App("quarkus")}
    env = what_was_built(builds, variants)
    assert set(env["libraries"]) == {"spring-boot@3.5.7", "spring-boot@4.1.1"}
    assert env["overlays"] == {"spring-boot@3.5.7": {"folder": "boot3", "files": ["pom.xml", "src/Main.java"]}}
    assert what_was_built({"quarkus": _Build(a)}, {"quarkus": _App("quarkus")}) == {}


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "results.sqlite")
    yield s
    s.close()


def _run(store: Store, env: dict) -> results.RunView:
    run = store.begin_run({"name": "upgrade"}, env)
    for version in ("3.5.7", "4.1.1"):
        store.add_figure(run, f"spring-boot@{version}", "jvm", "startup", "ttfr_ms", 900.0, "ms", point="warm",
                         repeat=1)
    store.finish_run(run, "complete")
    return results.load(store, run)


def test_the_report_by_version_lists_what_else_changed_between_two_versions(store, tmp_path):
    a, b = _fat_jar(tmp_path / "a.jar", BOOT3), _fat_jar(tmp_path / "b.jar", BOOT4)
    env = what_was_built({"spring-boot@3.5.7": _Build(a), "spring-boot@4.1.1": _Build(b)},
                         {"spring-boot@3.5.7": _App("spring-boot@3.5.7", "boot3", ("pom.xml",)),
                          "spring-boot@4.1.1": _App("spring-boot@4.1.1")})
    view = _run(store, env)
    [also] = also_changed(view)
    text = also.text()
    assert text.startswith("spring-boot 3.5.7 -> 4.1.1: sources: 3.5.7 from its boot3/ overlay, which replaces or "
                           "adds pom.xml; 4.1.1 from the app's own sources")
    assert "com.fasterxml.jackson.core:jackson-databind 2.19.2 -> tools.jackson.core:jackson-databind 3.1.5" in text
    assert f"also changed: {text}" in by_version.text_lines(view)
    page = by_version.render(view)
    assert "What else changed with each version" in page and "tools.jackson.core:jackson-databind 3.1.5" in page


def test_a_run_stored_before_libraries_were_recorded_says_so(store):
    [also] = also_changed(_run(store, {}))
    assert also.libraries is None and "were not recorded" in also.text()


def test_a_version_that_did_not_build_is_no_side_of_a_change(store):
    run = store.begin_run({"name": "upgrade"}, {"libraries": {"quarkus@3.33.2": {"io.quarkus:quarkus-core": "3.33.2"},
                                                              "quarkus@3.37.1": {"io.quarkus:quarkus-core": "3.37.1"}}})
    for version in ("3.33.2", "3.37.1"):
        store.add_figure(run, f"quarkus@{version}", "jvm", "startup", "ttfr_ms", 900.0, "ms", point="warm", repeat=1)
    store.add_outcome(run, "quarkus@3.38.1", "jvm", "run", "unavailable", "Could not find artifact")
    store.finish_run(run, "complete")
    [also] = also_changed(results.load(store, run))
    assert (also.older, also.newer, also.libraries) == ("3.33.2", "3.37.1", [])
