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
versions' artifacts never overwrite each other. Whether a version built here, and if not why, is
kept there too, for `perflab versions APP`.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from perflab.errors import LabError
from perflab.paths import build_dir, work_dir

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


def check_version(text: str, where: str = "version") -> str:
    if not isinstance(text, str) or not _VERSION.fullmatch(text):
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


# --- what built here --------------------------------------------------------------------------------

def _outcome_path(name: str) -> Path:
    return versions_dir() / f"{name}.json"


def record(name: str, ok: bool, why: str = "") -> None:
    """Whether app@version built here (and if not, the missing artifact or the first error)."""
    app, version = split_name(name)
    _outcome_path(name).write_text(json.dumps({"app": app, "version": version, "builds": ok, "why": why,
                                               "at": time.time()}, indent=2))


def known(app: str) -> list[dict]:
    """The versions of `app` tried here, in release order."""
    found = []
    for path in versions_dir().glob(f"{app}{SEPARATOR}*.json"):
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if entry.get("app") == app and _VERSION.fullmatch(str(entry.get("version", ""))):
            found.append(entry)
    return sorted(found, key=lambda e: release_key(e["version"]))


# What a build tool says when the registry lacks something, most specific first.
_MISSING = [re.compile(p) for p in (
    r"Could not find artifact \S+",
    r"artifacts? could not be resolved: [^\n]*?(?=: Could not|\n|$)",
    r"Non-resolvable (?:parent|import) POM[^\n]*",
    r"Plugin \S+ or one of its dependencies could not be resolved[^\n]*",
    r"\S+:\S+:\S+ was not found in \S+",  # a failure Maven cached from an earlier attempt
)]


def failure_reason(log_text: str) -> str:
    """The build's own words for why it failed: the missing artifact, else its first error line
    that says something (not a heading such as "Some problems were encountered ...:")."""
    for pattern in _MISSING:
        found = pattern.search(log_text)
        if found:
            return found.group(0).strip()
    for line in log_text.splitlines():
        text = re.sub(r"^(\[ERROR\]\s*)+", "", line.strip()).strip()
        if line.lstrip().startswith("[ERROR]") and text and not text.endswith(":") and not text.startswith("@"):
            return text
    for line in log_text.splitlines():  # go build, javac and others: the first line that says error
        if re.search(r"\berror\b|cannot find|undefined:|not found", line, re.I):
            return line.strip()
    lines = [line.strip() for line in log_text.splitlines() if line.strip()]
    return lines[0] if lines else "the build failed without output"


def expand(app, versions: list[str]) -> list:
    """The app once per planned version, in release order (no versions: the app as it is)."""
    if not versions:
        return [app]
    return [variant(app, v) for v in in_release_order([check_version(v, f"versions.{app.name}") for v in versions])]


class Unavailable(LabError):
    """A version that does not build here (the registry lacks an artifact, or the compiler refused it)."""


def build(app, log=print):
    """Build the app; for app@version, record whether it built and turn a failure into Unavailable
    with the build's own reason, so the plan goes on with the other versions."""
    from .building import build as build_app

    if not split_name(app.name)[1]:
        return build_app(app, log=log)
    try:
        result = build_app(app, log=log)
    except LabError as exc:
        log_path = work_dir() / "logs" / f"build-{app.build_key}.log"
        text = log_path.read_text(errors="replace") if log_path.exists() else str(exc)
        why = f"{failure_reason(text)} (log: {log_path})" if log_path.exists() else str(exc)
        record(app.name, False, why)
        raise Unavailable(f"{app.name} does not build here: {why}") from exc
    record(app.name, True)
    return result


def cli_versions(args) -> int:
    """`perflab versions APP`: the versions tried here, whether each built, and if not why."""
    from perflab.apps.descriptors import get

    app = get(args.app)
    tried = known(app.name)
    print(f"{app.name}: {app.framework} {app.framework_version} (its own version)"
          + ("" if app.versions else "; its perflab.toml has no [versions]: it is built at that version only"), flush=True)
    if not tried:
        print("  no other version tried here yet: perflab run PLAN --versions "
              f"{app.name}=VERSION[,VERSION...] builds each once", flush=True)
    for entry in tried:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.get("at", 0)))
        state = "builds" if entry.get("builds") else f"unavailable: {entry.get('why', '?')}"
        print(f"  {entry['version']:<14} {state}  (tried {when})", flush=True)
    return 0
