"""Building an app, cached by a hash of its sources: an unchanged app is not built again."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import unquote

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
    """Size of the artifact as it is shipped: a fast-jar's whole folder, a thin jar with every file
    its manifest's Class-Path names (Helidon's libs/), else the file."""
    if path.name == "quarkus-run.jar":
        path = path.parent
    if path.is_dir():
        return _folder_bytes(path)
    files = dict.fromkeys([path, *(p for p in class_path(path) if p.exists())])
    return sum(_folder_bytes(p) if p.is_dir() else p.stat().st_size for p in files)


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def class_path(jar: Path) -> list[Path]:
    """The files a jar's manifest puts on its class path (Class-Path: space-separated URLs relative to
    the jar's folder); none for a jar without one, or a file that is not a jar."""
    try:
        with zipfile.ZipFile(jar) as z:
            text = z.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile):
        return []
    # a manifest wraps its lines at 72 bytes: a line that goes on starts with one space
    for line in text.replace("\r\n", "\n").replace("\n ", "").splitlines():
        name, _, value = line.partition(":")
        if name.strip().lower() == "class-path":
            return [jar.parent / unquote(entry) for entry in value.split()]
    return []


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
            # the size as shipped, measured again: what counts as shipped may have changed since the stamp
            return BuildResult(**{**prev, "cached": True, "artifact_bytes": artifact_bytes(app.artifact_path)})
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
