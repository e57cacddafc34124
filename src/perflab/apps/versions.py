"""Framework versions as variants of an app: `quarkus@3.33.2` is the Quarkus app built against
Quarkus 3.33.2, an ordinary app to the runner, with its own build, build cache and results.

An app's descriptor says which build input carries its framework version ([versions] in
perflab.toml, see docs/versions.md):
- property: a build property, passed as -D<property>=<version> (Quarkus' platform BOM and plugin);
- parent: the Maven parent ("group:artifact") whose <version> is the framework's (Spring Boot's
  starter parent). Maven does not take a parent's version from a property, and importing the BOM
  instead would drop the parent's plugin configuration and so change today's build: the variant's
  copy of pom.xml names the version instead;
- env: build environment values with {version} (e.g. GOFLAGS or GOTOOLCHAIN for Go).

A release line whose API differs (Spring Boot 3.x under an app written for Boot 4) may name an
overlay folder ([versions.lines."3"] overlay = "boot3"): its files replace the same paths in the
variant's copy, so only what that line's API forces differs and the rest is the app's own code.

Each variant is built in a copy of the app's sources of its own (beside the build stamps), so the
versions' artifacts never overwrite each other. Whether it built: perflab.version_builds.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

from perflab.errors import LabError
from perflab.paths import build_dir

SEPARATOR = "@"
SPEC_KEYS = {"property", "parent", "env", "lines"}
LINE_KEYS = {"overlay"}
_LINE = re.compile(r"[0-9]+(?:\.[0-9]+)*")  # a version prefix: "3" (3.x), "3.5" (3.5.x)
_VERSION = re.compile(r"[0-9][0-9A-Za-z.+_-]*")
_PRE_RELEASE = ("alpha", "a", "beta", "b", "milestone", "m", "rc", "cr", "snapshot", "preview", "ea")
_RELEASE = ("", "final", "ga", "release")


@dataclass(frozen=True)
class VersionSpec:
    """Which build input carries the app's framework version."""
    property: str = ""
    parent: str = ""  # "groupId:artifactId"
    env: dict[str, str] = field(default_factory=dict)
    lines: dict[str, str] = field(default_factory=dict)  # version prefix -> overlay folder in the app


def _parse_lines(value, here: str) -> dict[str, str]:
    """[versions.lines."PREFIX"] overlay = "FOLDER": the overlay folder of each release line."""
    if not isinstance(value, dict):
        raise LabError(f"{here}.lines must be a table of release lines, e.g. [versions.lines.\"3\"]")
    out = {}
    for prefix, line in value.items():
        where = f"{here}.lines.{prefix!r}"
        if not _LINE.fullmatch(prefix):
            raise LabError(f"{where}: a line is a version prefix of numbers such as \"3\" or \"3.5\"")
        if not isinstance(line, dict) or set(line) != LINE_KEYS:
            raise LabError(f"{where}: name the line's overlay folder, e.g. overlay = \"boot3\"")
        folder = line["overlay"]
        if not isinstance(folder, str) or not folder.strip("/") or Path(folder).is_absolute() \
                or ".." in Path(folder).parts:
            raise LabError(f"{where}: overlay must be a folder inside the app, got {folder!r}")
        out[prefix] = folder.strip("/")
    return out


def parse_spec(value, where: str) -> VersionSpec | None:
    """The [versions] table of a descriptor (None when it has none)."""
    if value is None:
        return None
    here = f"{where} [versions]"
    if not isinstance(value, dict):
        raise LabError(f"{here} must be a table (property, parent or env)")
    unknown = set(value) - SPEC_KEYS
    if unknown:
        raise LabError(f"{here}: unknown key(s) {', '.join(sorted(unknown))}",
                       fix=f"allowed keys are: {', '.join(sorted(SPEC_KEYS))}")
    prop, parent, env = value.get("property", ""), value.get("parent", ""), value.get("env", {})
    if not isinstance(prop, str) or (prop and not re.fullmatch(r"[A-Za-z0-9_.-]+", prop)):
        raise LabError(f"{here}: property must be a build property name such as \"quarkus.platform.version\"")
    if not isinstance(parent, str) or (parent and parent.count(":") != 1):
        raise LabError(f"{here}: parent must be \"groupId:artifactId\", got {parent!r}")
    if not isinstance(env, dict) or not all(isinstance(v, str) and "{version}" in v for v in env.values()):
        raise LabError(f"{here}: env must be a table of strings that each contain {{version}}")
    if not (prop or parent or env):
        raise LabError(f"{here}: name what carries the version: property, parent or env")
    return VersionSpec(prop, parent, dict(env), _parse_lines(value.get("lines", {}), here))


def line_of(spec: VersionSpec, version: str) -> str:
    """The release line `version` belongs to: the longest prefix of its numbers among the spec's
    lines ("3.5" before "3" for 3.5.7; "3" is not a prefix of 30.1), "" when none is."""
    numbers = _LINE.match(check_version(version)).group(0).split(".")
    fits = [p for p in spec.lines if p.split(".") == numbers[:len(p.split("."))]]
    return max(fits, key=lambda p: len(p.split(".")), default="")


# `perflab ab`'s two revisions of one app (APP@base, APP@head), a series of two in this order: the
# lab orders, pairs and judges them as it does two framework versions, head against base
REVISIONS = ("base", "head")


def is_version(text) -> bool:
    return isinstance(text, str) and bool(_VERSION.fullmatch(text))


def in_series(text) -> bool:
    """A variant's suffix that makes it a member of a series: a framework version or an A/B revision."""
    return is_version(text) or text in REVISIONS


def check_version(text: str, where: str = "version") -> str:
    if not is_version(text):
        raise LabError(f"{where}: {text!r} is not a version (it starts with a digit, e.g. 3.33.2 or 4.0.0-RC1)")
    return text


def release_key(text: str) -> tuple:
    """Sort key in release order: numbers compare as numbers (3.10 after 3.9), a pre-release
    (alpha, beta, M1, RC2, SNAPSHOT) comes before its release, .Final/.GA equal the plain release;
    an A/B run's base before its head."""
    if text in REVISIONS:
        return ((), REVISIONS.index(text), "", ())
    check_version(text)
    head = re.match(r"[0-9]+(?:\.[0-9]+)*", text).group(0)
    numbers = [int(n) for n in head.split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:  # 3.0 == 3.0.0
        numbers.pop()
    rest = text[len(head):].lstrip(".-_+").lower()
    word = re.match(r"[a-z]*", rest).group(0)
    tail = [int(n) for n in re.findall(r"[0-9]+", rest[len(word):])]
    if word in _RELEASE and not tail:
        rank, word = 1, ""
    elif word in _PRE_RELEASE:
        rank = 0
    else:  # a qualifier after the release (a service pack, a patch build)
        rank = 2
    return (tuple(numbers), rank, word, tuple(tail))


def in_release_order(versions: list[str]) -> list[str]:
    return sorted(dict.fromkeys(versions), key=release_key)


def parse_cli(values: list[str]) -> dict[str, list[str]]:
    """--versions APP=V1,V2 (repeatable) as the plan's versions table."""
    out: dict[str, list[str]] = {}
    for text in values:
        app, sep, listed = text.partition("=")
        if not sep or not app or not listed:
            raise LabError(f"--versions {text!r}: expected APP=VERSION[,VERSION...], e.g. quarkus=3.33.2,3.37.1")
        out.setdefault(app, []).extend(check_version(v.strip(), f"--versions {app}") for v in listed.split(","))
    return out


def variant_name(app: str, version: str) -> str:
    return f"{app}{SEPARATOR}{version}"


def split_name(name: str) -> tuple[str, str]:
    """("quarkus", "3.33.2") for "quarkus@3.33.2"; (name, "") for an app without a version."""
    base, _, version = name.partition(SEPARATOR)
    return base, version


def version_series(labels: list[str]) -> list[list[str]]:
    """The labels of each app/mode measured at a version (or A/B revision), grouped, each group in
    release order."""
    series: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for label in labels:
        name, _, mode = label.partition("/")
        app, version = split_name(name)
        if in_series(version):
            series.setdefault((app, mode), []).append((version, label))
    return [[label for _, label in sorted(entries, key=lambda e: release_key(e[0]))] for entries in series.values()]


def versions_dir() -> Path:
    path = build_dir() / "versions"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _copy_sources(app, dest: Path) -> None:
    """The app's descriptor and sources, refreshed in dest (its build output, e.g. target/, stays)."""
    dest.mkdir(parents=True, exist_ok=True)
    for rel in ["perflab.toml", *app.sources]:
        src, out = app.dir / rel, dest / rel
        if out.is_dir() and not out.is_symlink():
            shutil.rmtree(out)
        elif out.exists():
            out.unlink()
        out.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, out, ignore=shutil.ignore_patterns("target", "__pycache__"))
        elif src.exists():
            shutil.copy2(src, out)


def _apply_overlay(app, folder: str, dest: Path) -> list[str]:
    """The line's overlay files over the variant's copy; returns them (relative paths). Each must
    replace or add a file inside the app's sources, so the build cache key (a hash of the sources)
    covers it."""
    root = app.dir / folder
    if not root.is_dir():
        raise LabError(f"app {app.name}: the overlay folder {folder!r} of its [versions.lines] does not exist",
                       fix=f"create {root} with the files that line needs, or remove the line")
    files = sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file())
    for rel in files:  # all checked before any is copied
        if not any(rel == Path(s) or rel.is_relative_to(s) for s in app.sources):
            raise LabError(f"app {app.name}: overlay file {folder}/{rel} lies outside the app's sources "
                           f"({', '.join(app.sources)})", fix="an overlay only replaces or adds files of the sources")
    for rel in files:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, dest / rel)
    return [rel.as_posix() for rel in files]


def set_parent_version(pom: Path, parent: str, version: str) -> None:
    """Write `version` as the version of the pom's <parent> `group:artifact`."""
    group, artifact = parent.split(":")
    text = pom.read_text()
    block = re.search(r"<parent>(.*?)</parent>", text, re.S)
    if not block or f"<groupId>{group}</groupId>" not in block.group(1) \
            or f"<artifactId>{artifact}</artifactId>" not in block.group(1):
        raise LabError(f"{pom}: no <parent> {parent}", fix="[versions] parent must name the pom's parent")
    inner = re.sub(r"<version>[^<]*</version>", f"<version>{version}</version>", block.group(1), count=1)
    pom.write_text(text[:block.start(1)] + inner + text[block.end(1):])


def variant(app, version: str):
    """The app built against `version` of its framework: an App named app@version."""
    check_version(version, f"app {app.name}: version")
    if SEPARATOR in app.name:
        raise LabError(f"app {app.name!r}: '{SEPARATOR}' in an app's name would read as a version",
                       fix="rename the app in its perflab.toml")
    spec: VersionSpec | None = app.versions
    if spec is None:
        raise LabError(f"app {app.name!r} does not say which build input carries its framework version",
                       fix="add a [versions] table (property, parent or env) to its perflab.toml, see docs/versions.md")
    name = variant_name(app.name, version)
    dest = versions_dir() / name
    _copy_sources(app, dest)
    line = line_of(spec, version)
    overlay = spec.lines[line] if line else ""
    overlay_files = tuple(_apply_overlay(app, overlay, dest)) if overlay else ()
    if spec.parent:
        set_parent_version(dest / "pom.xml", spec.parent, version)
    extra = [f"-D{spec.property}={version}"] if spec.property else []
    env = {**app.build_env, **{k: v.replace("{version}", version) for k, v in spec.env.items()}}
    modes = {m: replace(mode, build={**mode.build, "command": [*mode.build["command"], *extra]}) if mode.build else mode
             for m, mode in app.modes.items()}
    return replace(app, name=name, build_key=name, dir=dest, framework_version=version, modes=modes,
                   build_command=[*app.build_command, *extra], build_env=env, overlay=overlay,
                   overlay_files=overlay_files)


def expand(app, versions: list[str]) -> list:
    """The app once per planned version, in release order (no versions: the app as it is)."""
    if not versions:
        return [app]
    return [variant(app, v) for v in in_release_order([check_version(v, f"versions.{app.name}") for v in versions])]
