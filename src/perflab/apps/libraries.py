"""The libraries a built artifact bundles, read from the artifact itself (no build tool runs), and
what changed in them between two builds.

A framework upgrade brings more than the framework: Spring Boot 4 brings Jackson 3 (its packages
moved from com.fasterxml.jackson to tools.jackson), Tomcat 11, Hibernate 7. A change judged between
two versions is the change of everything the two builds ship, so the report by version lists it
beside the verdicts (perflab.report.versions).

What is read: a Spring Boot fat jar's BOOT-INF/lib (or a war's WEB-INF/lib), a Quarkus fast-jar's
lib/ folder beside quarkus-run.jar, or a folder of jars. Each bundled jar is named by the Maven
coordinates in its own META-INF/maven/.../pom.properties when it has them, else by its file name
(name-version.jar). A native binary or a Go program bundles no jars: nothing is read.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

_FILE = re.compile(r"(?P<name>.+?)-(?P<version>[0-9][^-/]*(?:-[A-Za-z0-9.]+)*)\.jar$")
_POM = re.compile(r"META-INF/maven/(?P<group>[^/]+)/(?P<artifact>[^/]+)/pom\.properties$")


def bundled(artifact: Path) -> dict[str, str]:
    """"group:artifact" (or the jar's name without a version) -> version, for every library the
    artifact bundles; empty when it bundles none that can be read."""
    artifact = Path(artifact)
    if artifact.name == "quarkus-run.jar":
        return _folder(artifact.parent / "lib")
    if artifact.is_dir():
        return _folder(artifact)
    if artifact.suffix not in (".jar", ".war") or not zipfile.is_zipfile(artifact):
        return {}
    out: dict[str, str] = {}
    with zipfile.ZipFile(artifact) as outer:
        for entry in outer.namelist():
            if entry.endswith(".jar") and entry.startswith(("BOOT-INF/lib/", "WEB-INF/lib/", "lib/")):
                with outer.open(entry) as nested:
                    out.update([_coordinates(Path(entry).name, io.BytesIO(nested.read()))])
    return dict(sorted(out.items()))


def _folder(root: Path) -> dict[str, str]:
    if not root.is_dir():
        return {}
    out = dict(_coordinates(jar.name, jar) for jar in root.rglob("*.jar") if jar.is_file())
    return dict(sorted(out.items()))


def _coordinates(file_name: str, source) -> tuple[str, str]:
    """A jar's (group:artifact, version) from its pom.properties, else from its file name."""
    named = _FILE.match(file_name)
    stem, version = (named.group("name"), named.group("version")) if named else (file_name[:-4], "")
    try:
        with zipfile.ZipFile(source) as jar:
            poms = [(m, jar.read(n).decode("utf-8", "replace")) for n in jar.namelist() if (m := _POM.match(n))]
    except (zipfile.BadZipFile, OSError, KeyError):
        poms = []
    # a shaded jar holds the poms of what it shades too: its own is the one its file is named after
    poms.sort(key=lambda p: not (stem.endswith(p[0].group("artifact"))))
    for match, text in poms:
        props = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
        got = props.get("version", "").strip()
        if got:
            return f"{props.get('groupId', match.group('group')).strip()}:" \
                   f"{props.get('artifactId', match.group('artifact')).strip()}", got
    return stem, version


def major(version: str) -> str:
    """The first number of a version ("3" of "3.1.5", "" when it has none)."""
    found = re.match(r"[0-9]+", version or "")
    return found.group(0) if found else ""


def _artifact(key: str) -> str:
    return key.rpartition(":")[2]


@dataclass(frozen=True)
class LibraryChange:
    kind: str       # "major", "moved" (its group changed), "added" or "removed"
    older: str      # "group:artifact version" ("" when added)
    newer: str      # the same, "" when removed

    def text(self) -> str:
        if self.kind == "added":
            return f"+ {self.newer}"
        if self.kind == "removed":
            return f"- {self.older}"
        return f"{self.older} -> {self.newer}"


def changes(older: dict[str, str], newer: dict[str, str]) -> list[LibraryChange]:
    """The libraries whose major version changed, that moved to another group (com.fasterxml.jackson.core
    -> tools.jackson.core: the same artifact name, another group), that appeared or that went;
    a change of minor or patch version only is left out."""
    out = []
    for key in sorted(older.keys() & newer.keys()):
        if major(older[key]) != major(newer[key]):
            out.append(LibraryChange("major", f"{key} {older[key]}", f"{key} {newer[key]}"))
    gone, came = sorted(older.keys() - newer.keys()), sorted(newer.keys() - older.keys())
    for key in list(gone):
        moved = [k for k in came if ":" in key and ":" in k and _artifact(k) == _artifact(key)]
        if len(moved) == 1:
            out.append(LibraryChange("moved", f"{key} {older[key]}", f"{moved[0]} {newer[moved[0]]}"))
            gone.remove(key)
            came.remove(moved[0])
    out += [LibraryChange("removed", f"{key} {older[key]}", "") for key in gone]
    out += [LibraryChange("added", "", f"{key} {newer[key]}") for key in came]
    return out
