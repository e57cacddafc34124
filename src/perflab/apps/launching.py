"""Launching an app in one of its modes, waiting until it is ready, and stopping it."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import quote, urlsplit

from perflab import httpclient, jdks, probes, procs
from perflab.errors import LabError
from perflab.paths import work_dir

from .descriptors import App, Mode


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


def jdbc_parts(jdbc: str) -> tuple[str, str, str, str]:
    """(kind, host, port, database) of a JDBC URL the lab gives an app: jdbc:postgresql://HOST:PORT/NAME
    or H2 over TCP, jdbc:h2:tcp://HOST:PORT/NAME (its options after ';' are not part of the name)."""
    kind, sep, rest = jdbc.removeprefix("jdbc:").partition(":")
    if kind == "h2":
        rest = rest.removeprefix("tcp:")
    parts = urlsplit(rest.split(";", 1)[0]) if sep else None
    if parts is None or not parts.hostname:
        raise LabError(f"cannot read the database's host from the JDBC URL {jdbc!r}",
                       fix="the lab gives apps jdbc:postgresql://HOST:PORT/NAME or jdbc:h2:tcp://HOST:PORT/NAME")
    return kind, parts.hostname, str(parts.port or ""), parts.path.lstrip("/")


def connection_values(db_env: dict[str, str], port: int) -> dict[str, str]:
    """The values of the connection placeholders ({http_port}, {db_jdbc_url}, {db_url}, ...), read
    from the DB_URL (JDBC), DB_USER and DB_PASSWORD the lab passes every app. {db_url} is a libpq
    URL, so PostgreSQL's only: an H2 app has none (its descriptor may not name it)."""
    values = {"http_port": str(port), "db_jdbc_url": "", "db_host": "", "db_port": "", "db_name": "",
              "db_user": db_env.get("DB_USER", ""), "db_password": db_env.get("DB_PASSWORD", ""), "db_url": ""}
    jdbc = db_env.get("DB_URL", "")
    if not jdbc:
        return values
    kind, host, db_port, name = jdbc_parts(jdbc)
    values.update(db_jdbc_url=jdbc, db_host=host, db_port=db_port, db_name=name)
    if kind == "postgresql":
        user, password = quote(values["db_user"], safe=""), quote(values["db_password"], safe="")
        values["db_url"] = f"postgresql://{user}:{password}@{host}:{db_port}/{name}"
    return values


def _expand(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


HEAP_OPTIONS = ("-Xmx", "-Xms", "-Xmn", "-Xss")  # what a GraalVM native executable takes at run time too


def heap_opts(jvm_opts: list[str]) -> list[str]:
    """The heap sizes among the plan's JVM options ({heap_opts}): a native mode's share of them."""
    return [o for o in jvm_opts if o.startswith(HEAP_OPTIONS)]


def mode_jvm_opts(mode: Mode, limits: dict) -> list[str]:
    """The options a plan's limits give a mode: jvm_opts, or for a native mode (its command takes
    {heap_opts} and no {jvm_opts}) the plan's native_heap_opts when it sets them."""
    native = limits.get("native_heap_opts") or []
    if native and not mode.is_jvm and "{jvm_opts}" not in mode.command:
        return list(native)
    return list(limits.get("jvm_opts") or [])


def launch_argv(app: App, mode: Mode, jvm_opts: list[str] | None = None, jdk: int | None = None,
                tmp_dir: Path | None = None, connection: dict[str, str] | None = None) -> tuple[list[str], dict]:
    """The argv and extra environment for a mode; {jvm_opts} expands to zero or more options and
    {heap_opts} to the heap sizes among them, the connection placeholders (see connection_values)
    to the app's port and database."""
    major = jdk or mode.jdk
    java_home = jdks.require_jdk(major) if major else None
    values = {
        "java": str(java_home / "bin" / "java") if java_home else "java",
        "java_home": str(java_home) if java_home else "",
        "artifact": str(app.artifact_path),
        "app_dir": str(app.dir),
        "tmp_dir": str(tmp_dir or ""),
        **(connection or {}),
    }
    whole = {"{jvm_opts}": list(jvm_opts or []), "{heap_opts}": heap_opts(jvm_opts or [])}
    argv: list[str] = []
    for arg in mode.command:
        argv.extend(whole[arg] if arg in whole else [_expand(arg, values)])
    env = {key: _expand(str(value), values) for key, value in mode.env.items()}
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
    argv, mode_env = launch_argv(app, mode, jvm_opts, jdk, tmp_dir, connection_values(db_env, port))
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
    resp = httpclient.answer(url, timeout)
    return None if resp is None else resp.status


def wait_ready(running: Running, timeout: float = 120.0, path: str | None = None, interval: float = 0.05) -> float:
    """Wait until the app answers 200 on its readiness path (polled by `probes.wait_ready`); seconds
    from launch. Clear errors when it exits or is not ready in time (with the last lines of its log)."""
    url = running.base_url + (path or running.app.ready_path)
    ready = probes.wait_ready(url, running.started_ns, running.proc, timeout_s=timeout,
                              interval_ms=interval * 1e3)
    if ready.ok:
        return ready.elapsed_ms / 1e3
    rc = running.proc.poll()
    if rc is not None:
        problem = f"exited with code {rc} before it was ready"
    else:
        problem = (f"was not ready within {timeout:.0f} s"
                   + (f" ({url} answered {ready.status})" if ready.status else f" (nothing answered at {url})"))
    raise LabError(f"{running.app.name} ({running.mode}) {problem}",
                   details="last lines of its log:\n" + procs.tail(running.log_path, 20),
                   fix=f"see {running.log_path}")
