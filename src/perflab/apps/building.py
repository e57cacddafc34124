"""Building an app, cached by a hash of its sources: an unchanged app is not built again."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from perflab import jdks, procs
from perflab.errors import LabError
from perflab.paths import MAVEN_WRAPPER, build_dir, work_dir

from .descriptors import App

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
