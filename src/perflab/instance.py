"""One measured instance of an app: launched in its own cgroup (CPU and memory limits) with a
resource sampler running from exec to exit, and always torn down (process group, sampler, cgroup).

How it ended matters as much as what it measured: an instance that exits on its own is reported
as crashed, or as OOM-killed when its cgroup counted an OOM kill.
"""

from __future__ import annotations

import itertools
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from perflab import apps, isolate, probes, procs, signals
from perflab.errors import AppFailed

EXIT_WAIT_S = 5.0  # for the last threads of a process whose main thread is dead

JVM_FLAG_PRINT = "-XX:+PrintCommandLineFlags"  # the JVM logs the GC and heap it chose
_counter = itertools.count(1)


@dataclass
class InstanceSpec:
    run_id: str
    app: apps.App
    mode: str
    limits: isolate.Limits
    db_env: dict[str, str]
    log_dir: Path
    jvm_opts: list[str] = field(default_factory=list)
    jdk: int | None = None
    sample_hz: float = 20.0
    setup: isolate.CgroupSetup | None = None
    cgroup: object | None = None  # share an existing cgroup (density: many instances, one budget)


class Instance:
    def __init__(self, spec: InstanceSpec, port: int | None = None, tag: str = ""):
        self.spec = spec
        self.port = port or spec.app.port or procs.free_port()
        n = next(_counter)
        self.tag = tag or f"i{n}"
        self.log_path = spec.log_dir / f"{spec.app.name}-{spec.mode}-{self.tag}.log"
        self.cgroup = None
        self.owns_cgroup = spec.cgroup is None
        self.running: apps.Running | None = None
        self.sampler: probes.ResourceSampler | None = None
        self.stopped_by_lab = False

    # --- lifecycle ------------------------------------------------------------------------------

    def start(self) -> "Instance":
        spec = self.spec
        if self.owns_cgroup:
            role = f"{spec.app.name}-{spec.mode}-{self.tag}".replace("_", "-")
            self.cgroup = isolate.Cgroup(spec.run_id, role, spec.limits, setup=spec.setup)
        else:
            self.cgroup = spec.cgroup
        opts = list(spec.jvm_opts)
        if "{jvm_opts}" in spec.app.mode(spec.mode).command and JVM_FLAG_PRINT not in opts:
            opts.append(JVM_FLAG_PRINT)
        try:
            self.running = apps.launch(spec.app, spec.mode, port=self.port, db_env=spec.db_env,
                                       log_path=self.log_path, jvm_opts=opts, jdk=spec.jdk,
                                       preexec=self.cgroup.preexec)
            self.sampler = probes.ResourceSampler(self.running.proc.pid, cgroup=self.cgroup if self.owns_cgroup else None,
                                                  hz=spec.sample_hz).start()
        except BaseException:
            self.stop()
            raise
        return self

    @property
    def spawn_ns(self) -> int:
        return self.running.started_ns

    @property
    def pid(self) -> int:
        return self.running.proc.pid

    @property
    def base_url(self) -> str:
        """Where the lab's own requests reach the app (polls, the contract's checks)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def load_url(self) -> str:
        """Where the placement's load generator reaches it: on one machine, the same place."""
        return self.base_url

    def exited(self) -> int | None:
        """The exit status (negative: the signal), None while it runs. A multi-threaded process
        killed with SIGKILL shows as a zombie while its other threads are still on their way out,
        and poll() answers None until the last has gone: a dead main thread is waited for (briefly)."""
        if not self.running:
            return None
        proc = self.running.proc
        code = proc.poll()
        if code is None:
            stat = probes.read_stat(proc.pid)
            if stat is not None and stat.gone:
                try:
                    code = proc.wait(timeout=EXIT_WAIT_S)
                except subprocess.TimeoutExpired:
                    return None
        return code

    def end_reason(self) -> str:
        """Why the instance is gone (or '' while it runs): OOM kill, crash with code or signal."""
        code = self.exited()
        if code is None:
            return ""
        oom = self.cgroup.oom_kills() if self.cgroup is not None else None
        limit = self.spec.limits.memory_mb
        if oom:
            return f"OOM-killed under the {limit} MB memory limit"
        if code < 0:
            return f"killed by signal {-code}"
        return f"exited with code {code}"

    def _poll(self, path: str, timeout_s: float, interval_ms: float, failure: str) -> probes.PollResult:
        result = probes.poll_http(self.base_url + path, self.spawn_ns, self.running.proc, timeout_s=timeout_s,
                                  interval_ms=interval_ms)
        if not result.ok:
            raise AppFailed(f"{failure}: {self.end_reason() or result.reason}")
        return result

    def wait_until_ready(self, timeout_s: float, interval_ms: float = 20.0) -> probes.PollResult:
        """Launch -> the app's readiness path answers 200; AppFailed says why it did not (the
        instance's end: OOM kill, crash, signal; or the poll's time-out)."""
        return self._poll(self.spec.app.ready_path, timeout_s, interval_ms, "not ready")

    def first_response(self, path: str, timeout_s: float, interval_ms: float = 5.0) -> probes.PollResult:
        """Launch -> the first 200 of `path` (time to first response); AppFailed says why not."""
        return self._poll(path, timeout_s, interval_ms, "no first response")

    def check_alive(self) -> None:
        """AppFailed if the instance has ended (why: OOM kill, crash, signal)."""
        reason = self.end_reason()
        if reason:
            raise AppFailed(reason)

    def start_log(self, pattern: str, timeout_s: float) -> probes.StartLogMatch:
        """The framework's own start time from its log (the line `pattern` matches), followed until
        it appears, the process ends or `timeout_s` passes."""
        return probes.watch_start_log(self.log_path, pattern, timeout_s=timeout_s, process=self.running.proc)

    @property
    def limits_enforced(self) -> bool | None:
        """Whether its cgroup enforces the plan's limits (None: no cgroup of its own)."""
        return self.cgroup.enforced if self.cgroup is not None else None

    def jvm_flags(self) -> str:
        """The flags the JVM printed (GC, heap), if it did."""
        try:
            for line in self.log_path.read_text(errors="replace").splitlines()[:20]:
                if line.startswith("-XX:"):
                    return line.strip()
        except OSError:
            pass
        return ""

    def stop(self) -> probes.SampleSeries | None:
        """Stop the process tree, the sampler and (if ours) the cgroup; returns the samples."""
        series = None
        with signals.shielded():
            self.stopped_by_lab = True
            if self.running is not None:
                self.running.stop()
            if self.sampler is not None:
                series = self.sampler.stop()
            if self.owns_cgroup and self.cgroup is not None:
                try:
                    self.cgroup.close()
                except Exception:  # cleanup must go on; cleanup_stale() catches leftovers
                    pass
        return series

    def __enter__(self) -> "Instance":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def stop_all(instances: list[Instance]) -> None:
    """Stop many instances: SIGTERM to all first so they shut down in parallel, then each for good."""
    with signals.shielded():
        for inst in instances:  # processes of this machine (a pod is stopped by its own stop())
            if getattr(inst, "running", None) is not None and not inst.stopped_by_lab:
                procs.signal_group(inst.pid, signal.SIGTERM)
        for inst in reversed(instances):
            inst.stop()


def mb(value: float | None) -> float | None:
    return None if value is None else value / (1024 * 1024)

