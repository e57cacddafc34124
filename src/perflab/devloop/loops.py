"""The ways a developer sees a change, each as the steps the lab takes after a save:

- dev-mode (Quarkus `quarkus:dev`): nothing; the next request recompiles and reloads. (Where the
  registry lacks its Dev UI pieces, dev mode starts again with the app's dev-mode pins.)
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


# The Quarkus apps' dev-mode-only Maven profile (see apps/quarkus/pom.xml): the Dev UI pieces pinned
# to the nearest release a partial registry serves. Added only after plain dev mode failed to resolve,
# so where Maven Central is complete dev mode runs as a developer's would.
DEV_UI_PINS = "perflab.dev-ui-pins"
_FIX = "run where Maven Central is complete, or add the artifacts to the Maven mirror"


class QuarkusDev(Loop):
    kind = DEV_MODE
    # what plain dev mode could not resolve here, when the loop runs with the app's pins instead
    lacked: list[str] = []

    def command(self, pinned: bool) -> list[str]:
        return [str(self.wc.mvnw), "-B", "quarkus:dev", *([f"-D{DEV_UI_PINS}=true"] if pinned else []),
                "-Ddebug=false", "-Dquarkus.devservices.enabled=false", "-Dquarkus.console.enabled=false",
                "-Dquarkus.analytics.disabled=true", f"-Dquarkus.http.port={self.port}"]

    def start(self) -> None:
        env = _tool_env(self.wc, self.port, self.db_env, self.mode)
        self._spawn(self.command(pinned=False), env)
        lacked = self._unresolved()
        if not lacked:
            return
        if DEV_UI_PINS not in (self.wc.app.dir / "pom.xml").read_text():
            raise Unavailable(f"dev mode cannot start: the registry lacks {', '.join(lacked)}", fix=_FIX)
        self.app_log.rename(self.log("unpinned"))  # kept beside the log of the run that counts
        self._spawn(self.command(pinned=True), env)
        still = self._unresolved()
        if still:
            raise Unavailable(f"dev mode cannot start: the registry lacks {', '.join(lacked)}; "
                              f"with the app's dev-mode pins ({DEV_UI_PINS}) still {', '.join(still)}", fix=_FIX)
        self.lacked = lacked

    def _unresolved(self) -> list[str]:
        """Wait until dev mode listens or its Maven process ends; the artifacts it ended on (none when
        it listens, times out or ends for another reason, which the caller's wait reports)."""
        assert self.proc is not None
        deadline = self.started_ns + int(self.timeout_s * 1e9)
        while time.monotonic_ns() < deadline:
            if self.proc.poll() is not None:
                return missing_artifacts(self.app_log.read_text(errors="replace"))
            if procs.port_in_use(self.port):
                return []
            time.sleep(0.2)
        return []


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


_COORDS = r"[\w.\-]+:[\w.\-]+(?::[\w.\-]+){1,3}"  # group:artifact:type[:classifier]:version
# Maven's and Quarkus's words for an artifact the registry did not serve (now or, cached, before).
_ABSENT = re.compile(rf"(?:Could not find artifact|Failed to resolve artifact)\s+({_COORDS})"
                     rf"|({_COORDS}) (?:\(absent\)|was not found in)")
# Quarkus says this when an extension's deployment POM could not be resolved, or when that POM has no
# dependencies: only a request for the POM in the same log that never completed shows it absent.
_NO_POM = re.compile(rf"Failed to collect dependencies of ({_COORDS}): either its POM could not be resolved")
_TRANSFER = re.compile(r"^(?:\[INFO\] )?Download(ing|ed) from \S+: (\S+)", re.M)


def _gav(coords: str) -> str:
    group, artifact, *_, version = coords.split(":")
    return f"{group}:{artifact}:{version}"


def _pom_never_arrived(coords: str, log_text: str) -> bool:
    group, artifact, *_, version = coords.split(":")
    pom = f"/{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.pom"
    transfers = [verb for verb, url in _TRANSFER.findall(log_text) if url.endswith(pom)]
    return "ing" in transfers and "ed" not in transfers


def missing_artifacts(log_text: str) -> list[str]:
    """group:artifact:version of each artifact a failed Maven start showed absent from the registry,
    in order, once each (an artifact only named beside one, e.g. the runtime artifact of a
    deployment artifact whose POM is absent, is not)."""
    found: dict[int, str] = {}
    for m in _ABSENT.finditer(log_text):
        found.setdefault(m.start(), _gav(m.group(1) or m.group(2)))
    for m in _NO_POM.finditer(log_text):
        if _pom_never_arrived(m.group(1), log_text):
            found.setdefault(m.start(), _gav(m.group(1)))
    return list(dict.fromkeys(found[at] for at in sorted(found)))


def loops_for(app_name: str, framework: str) -> list[type[Loop]]:
    """The loops measured for an app: its dev mode first (when it has one), then rebuild-restart."""
    if framework == "Quarkus":
        return [QuarkusDev, RebuildRestart]
    if framework.startswith("Spring"):
        return [SpringDevtools, RebuildRestart]
    return [RebuildRestart]
