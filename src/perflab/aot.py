"""Preparing a mode before it is measured: its `prepare` step (e.g. extracting a Spring Boot jar so
its classes can be cached) and, for `aot = "train"` modes, a JDK AOT cache (JEP 483/514, JDK 24+).

Training: one launch with -XX:AOTCacheOutput, the contract's read-only requests plus a short load
on /fruits and /todos, then SIGTERM (the JVM writes the cache at exit). The cache counts as trained
only if the file exists and is not empty; measured launches then use -XX:AOTCache with
-XX:AOTMode=on, which makes the JVM refuse to start rather than silently run without the cache.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from perflab import apps, contract, isolate, probes, procs
from perflab.drivers import wrk
from perflab.errors import LabError
from perflab.instance import Instance
from perflab.lab import AppFailed, Lab


def prepare(app: apps.App, mode_name: str, log_path: Path) -> None:
    mode = app.mode(mode_name)
    if not mode.prepare:
        return
    argv, env_extra = apps.launch_argv(app, apps.Mode(mode.name, mode.prepare, mode.jdk))
    argv = [a for a in argv if a]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as out:
        res = subprocess.run(argv, cwd=app.dir, stdout=out, stderr=subprocess.STDOUT, timeout=300,
                             env={**apps.build_env(app), **env_extra})
    if res.returncode != 0:
        raise AppFailed(f"prepare step {' '.join(mode.prepare)} failed (exit {res.returncode}); see {log_path}")


def train(lab: Lab, app: apps.App, mode_name: str) -> tuple[list[str], dict]:
    """Train an AOT cache for this run; returns the JVM options that use it and what was done."""
    cache = lab.store.run_dir(lab.run_id) / "aot" / f"{app.name}-{mode_name}.aot"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.unlink(missing_ok=True)
    spec = lab.spec(app, mode_name)
    spec.jvm_opts = spec.jvm_opts + [f"-XX:AOTCacheOutput={cache}"]
    # Training is not measured: no CPU quota, and room for the second JVM that the JDK forks at exit
    # to assemble the cache (under the plan's limits it can take minutes or be starved).
    spec.limits = isolate.Limits(cpus=spec.limits.cpus, memory_mb=(spec.limits.memory_mb or 1024) * 2)
    inst = Instance(spec, tag="aot-training").start()
    info: dict = {"cache": str(cache)}
    try:
        ready = probes.wait_ready(inst.base_url + app.ready_path, inst.spawn_ns, inst.running.proc,
                                  timeout_s=lab.plan["startup"]["timeout_s"], interval_ms=20)
        if not ready.ok:
            raise AppFailed(f"AOT training run not ready: {inst.end_reason() or ready.reason}")
        problems = contract.verify(inst.base_url)
        if problems:
            raise AppFailed("AOT training run failed the contract check: " + "; ".join(problems[:3]))
        for path in ("/fruits", "/todos"):
            wrk.run_wrk(inst.base_url + path, connections=4, threads=1, duration_s=5, cpus=lab.driver_cpus())
        started = time.monotonic()
        lab.progress.update("writing the AOT cache")
        # SIGTERM only (no quick SIGKILL): the cache is written while the JVM exits
        procs.stop_group(inst.pid, timeout=600, proc=inst.running.proc)
        info["exit_code"] = inst.running.proc.returncode
        info["write_s"] = round(time.monotonic() - started, 2)
    finally:
        inst.stop()
    if not cache.exists() or cache.stat().st_size == 0:
        raise AppFailed(f"AOT training did not write a cache (JVM exit {info.get('exit_code')} after "
                        f"{info.get('write_s')} s); see {inst.log_path}")
    info["cache_mb"] = round(cache.stat().st_size / 1e6, 1)
    return [f"-XX:AOTCache={cache}", "-XX:AOTMode=on"], info


def prepare_target(lab: Lab, app: apps.App, mode_name: str) -> list[str]:
    """Run the mode's prepare step and AOT training; returns extra JVM options for its launches."""
    mode = app.mode(mode_name)
    prepare(app, mode_name, lab.log_dir / f"{app.name}-{mode_name}-prepare.log")
    if mode.aot != "train":
        return []
    if not mode.is_jvm:
        raise LabError(f"{app.name} mode {mode_name}: aot = \"train\" needs a JVM mode")
    lab.progress.update("training the AOT cache")
    opts, info = train(lab, app, mode_name)
    lab.record(app.name, mode_name, "footprint", "aot_cache_mb", info["cache_mb"], "MB", extra=info)
    lab.record(app.name, mode_name, "footprint", "aot_cache_write_s", info["write_s"], "s", extra=info)
    return opts
