"""The ways a developer sees a change, each as the steps the lab takes after a save:

- dev-mode (Quarkus `quarkus:dev`): nothing; the next request recompiles and reloads.
- devtools (Spring Boot DevTools under `spring-boot:run`): the compile an IDE does on save, then
  DevTools restarts the application inside the running JVM.
- rebuild-restart (any app): stop, rebuild with the app's own build command, start the artifact.

A loop runs from a WorkingCopy, against the lab's PostgreSQL, on a free port, with no stdin.
"""

from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from perflab import jdks, procs
from perflab.apps import launching
from perflab.apps.building import build_env
from perflab.errors import LabError

from .workcopy import WorkingCopy

DEV_MODE, DEVTOOLS, REBUILD = "dev-mode", "devtools", "rebuild-restart"


@dataclass
class AfterSave:
    """What the lab did after a save: the steps by name, and the step that failed (with its output)."""

    steps: list[str] = field(default_factory=list)
    failed: str = ""
    output: str = ""


class Unavailable(LabError):
    """This loop cannot run here (e.g. dev-mode artifacts missing from the registry)."""

    status = "unavailable"


class CheckFailed(Unavailable):
    """The app started but failed its check before measuring."""

    status = "failed"


def _tool_env(wc: WorkingCopy, port: int, db_env: dict[str, str], mode: str) -> dict[str, str]:
    env = build_env(wc.app)
    if not wc.app.build_jdk and "JAVA_HOME" not in env:
        env["JAVA_HOME"] = str(jdks.require_jdk(17))
    env.update({"HTTP_PORT": str(port), "PERFLAB_MODE": mode, "DB_POOL_MIN": "5", "DB_POOL_MAX": "20"})
    env.update(db_env)
    return env


def _run_tool(argv: list[str], cwd: Path, env: dict[str, str], log_path: Path, timeout_s: float) -> tuple[int, str]:
    """Run a build/compile step to the end; (exit code, its output). Stopped with its children on
    Ctrl-C or when it overruns."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            procs.stop_group(proc.pid, timeout=5, proc=proc)
            rc = -1
        except BaseException:
            procs.stop_group(proc.pid, timeout=5, proc=proc)
            raise
    return rc, log_path.read_text(errors="replace")


class Loop:
    kind = ""
    steps_after_save: tuple[str, ...] = ()

    def __init__(self, wc: WorkingCopy, mode: str, port: int, db_env: dict[str, str], log_dir: Path,
                 timeout_s: float, jvm_opts: list[str] | None = None):
        self.wc, self.mode, self.port, self.db_env = wc, mode, port, db_env
        self.log_dir, self.timeout_s, self.jvm_opts = log_dir, timeout_s, jvm_opts or []
        self.proc: subprocess.Popen | None = None
        self.started_ns = 0
        self._n = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self, what: str) -> Path:
        self._n += 1
        return self.log_dir / f"devloop-{self.wc.source.name}-{self.kind}-{self._n:02d}-{what}.log"

    @property
    def app_log(self) -> Path:
        return self.log_dir / f"devloop-{self.wc.source.name}-{self.kind}.log"

    def start(self) -> None:
        raise NotImplementedError

    def after_save(self) -> AfterSave:
        return AfterSave()

    def app_starts(self) -> int | None:
        """How often the app has logged its start line so far (a dev loop restarts it in the same
        process and log); None for loops whose log starts afresh with each launch."""
        if self.kind == REBUILD or not self.wc.app.startup_log_regex or not self.app_log.exists():
            return None
        return len(re.findall(self.wc.app.startup_log_regex, self.app_log.read_text(errors="replace")))

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is not None:
            procs.stop_group(self.proc.pid, timeout=15, proc=self.proc)
            self.proc = None

    def _spawn(self, argv: list[str], env: dict[str, str]) -> None:
        if procs.port_in_use(self.port):
            raise LabError(f"devloop: port {self.port} is already in use")
        self.started_ns = time.monotonic_ns()
        self.proc = procs.spawn(argv, log_path=self.app_log, cwd=self.wc.app.dir, env=env)
        self.wc.remember_child(self.proc.pid)


class QuarkusDev(Loop):
    kind = DEV_MODE

    def start(self) -> None:
        env = _tool_env(self.wc, self.port, self.db_env, self.mode)
        self._spawn([str(self.wc.mvnw), "-B", "quarkus:dev", "-Ddebug=false", "-Dquarkus.devservices.enabled=false",
                     "-Dquarkus.console.enabled=false", "-Dquarkus.analytics.disabled=true",
                     f"-Dquarkus.http.port={self.port}"], env)


class SpringDevtools(Loop):
    kind = DEVTOOLS
    steps_after_save = ("compile",)

    def start(self) -> None:
        env = _tool_env(self.wc, self.port, self.db_env, self.mode)
        self._spawn([str(self.wc.mvnw), "-B", "spring-boot:run"], env)

    def after_save(self) -> AfterSave:
        # what an IDE does on save: compile the changed sources into target/classes
        env = _tool_env(self.wc, self.port, self.db_env, self.mode)
        rc, out = _run_tool([str(self.wc.mvnw), "-B", "-o", "-q", "compile"], self.wc.app.dir, env,
                            self.log("compile"), self.timeout_s)
        return AfterSave(["compile"], "" if rc == 0 else "compile", out)


class RebuildRestart(Loop):
    kind = REBUILD
    steps_after_save = ("stop", "rebuild", "restart")

    def _build(self) -> tuple[int, str]:
        argv = [a.replace("{mvnw}", str(self.wc.mvnw)).replace("{app_dir}", str(self.wc.app.dir))
                for a in self.wc.app.build_command]
        return _run_tool(argv, self.wc.app.dir, build_env(self.wc.app), self.log("build"), self.timeout_s)

    def _launch(self) -> None:
        running = launching.launch(self.wc.app, self.mode, port=self.port, db_env=self.db_env,
                                   log_path=self.app_log, jvm_opts=self.jvm_opts)
        self.proc, self.started_ns = running.proc, running.started_ns
        self.wc.remember_child(self.proc.pid)

    def start(self) -> None:
        rc, out = self._build()
        if rc != 0:
            raise LabError(f"devloop: building {self.wc.source.name} in its working copy failed (exit {rc})",
                           details=out[-2000:])
        self._launch()

    def after_save(self) -> AfterSave:
        done = AfterSave()
        if self.alive():
            self.stop()
            done.steps.append("stop")
        rc, out = self._build()
        done.steps.append("rebuild")
        if rc != 0:
            done.failed, done.output = "rebuild", out
            return done
        self._launch()
        done.steps.append("restart")
        return done


_MISSING = re.compile(r"(?:Failed to resolve artifact|Failed to collect dependencies of|Could not find artifact)"
                      r"\s+([\w.\-]+:[\w.\-]+(?::[\w.\-]+)*)")


def missing_artifacts(log_text: str) -> list[str]:
    """Artifacts a failed Maven start could not resolve, in order, once each."""
    found: list[str] = []
    for m in _MISSING.finditer(log_text):
        if m.group(1) not in found:
            found.append(m.group(1))
    return found


def loops_for(app_name: str, framework: str) -> list[type[Loop]]:
    """The loops measured for an app: its dev mode first (when it has one), then rebuild-restart."""
    if framework == "Quarkus":
        return [QuarkusDev, RebuildRestart]
    if framework.startswith("Spring"):
        return [SpringDevtools, RebuildRestart]
    return [RebuildRestart]
