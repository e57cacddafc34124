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

Each variant is built in a copy of the app's sources of its own (beside the build stamps), so the
versions' artifacts never overwrite each other. Whether it built: perflab.apps.version_builds.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

from perflab.errors import LabError
from perflab.paths import build_dir

SEPARATOR = "@"
SPEC_KEYS = {"property", "parent", "env"}
_VERSION = re.compile(r"[0-9][0-9A-Za-z.+_-]*")
_PRE_RELEASE = ("alpha", "a", "beta", "b", "milestone", "m", "rc", "cr", "snapshot", "preview", "ea")
_RELEASE = ("", "final", "ga", "release")


@dataclass(frozen=True)
class VersionSpec:
    """Which build input carries the app's framework version."""
    property: str = ""
    parent: str = ""  # "groupId:artifactId"
    env: dict[str, str] = field(default_factory=dict)


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
    return VersionSpec(prop, parent, dict(env))


def is_version(text) -> bool:
    return isinstance(text, str) and bool(_VERSION.fullmatch(text))


def check_version(text: str, where: str = "version") -> str:
    if not is_version(text):
        raise LabError(f"{where}: {text!r} is not a version (it starts with a digit, e.g. 3.33.2 or 4.0.0-RC1)")
    return text


def release_key(text: str) -> tuple:
    """Sort key in release order: numbers compare as numbers (3.10 after 3.9), a pre-release
    (alpha, beta, M1, RC2, SNAPSHOT) comes before its release, .Final/.GA equal the plain release."""
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
    if spec.parent:
        set_parent_version(dest / "pom.xml", spec.parent, version)
    extra = [f"-D{spec.property}={version}"] if spec.property else []
    env = {**app.build_env, **{k: v.replace("{version}", version) for k, v in spec.env.items()}}
    modes = {m: replace(mode, build={**mode.build, "command": [*mode.build["command"], *extra]}) if mode.build else mode
             for m, mode in app.modes.items()}
    return replace(app, name=name, build_key=name, dir=dest, framework_version=version, modes=modes,
                   build_command=[*app.build_command, *extra], build_env=env)


def expand(app, versions: list[str]) -> list:
    """The app once per planned version, in release order (no versions: the app as it is)."""
    if not versions:
        return [app]
    return [variant(app, v) for v in in_release_order([check_version(v, f"versions.{app.name}") for v in versions])]
