"""aot: preparing a mode before it is measured: its `prepare` step (e.g. extracting a Spring Boot jar so
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

from perflab import api_checks, apps, isolate, procs
from perflab.errors import AppFailed, LabError
from perflab.placements import KUBERNETES
from perflab.scenario import Context, Phase, Scenario
from perflab.settings import Settings, setting


class AotSettings(Settings):
    timeout_s: float = setting(180.0, "how long the training launch may take to become ready", "s", gt=0)
    training_load_s: float = setting(5.0, "load on /fruits and on /todos during training", "s", ge=1)
    write_timeout_s: float = setting(600.0, "how long the JVM may take to write the cache at exit", "s", gt=0)


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


def _cache(ctx: Context) -> Path:
    return ctx.lab.store.run_dir(ctx.lab.run_id) / "aot" / f"{ctx.app.name}-{ctx.mode}.aot"


def _use(cache: Path) -> list[str]:
    """The JVM options of the launches that use a trained cache."""
    return [f"-XX:AOTCache={cache}", "-XX:AOTMode=on"]


def train(ctx: Context) -> tuple[list[str], dict]:
    """Train an AOT cache for this run; returns the JVM options that use it and what was done."""
    cfg = ctx.settings
    cache = _cache(ctx)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.unlink(missing_ok=True)
    spec = ctx.spec()
    spec.jvm_opts = spec.jvm_opts + [f"-XX:AOTCacheOutput={cache}"]
    # Training is not measured: no CPU quota, and room for the second JVM that the JDK forks at exit
    # to assemble the cache (under the plan's limits it can take minutes or be starved).
    spec.limits = isolate.Limits(cpus=spec.limits.cpus, memory_mb=(spec.limits.memory_mb or 1024) * 2)
    inst = ctx.launch("aot-training", spec)
    info: dict = {"cache": str(cache)}
    try:
        try:
            inst.wait_until_ready(cfg.timeout_s)
        except AppFailed as exc:
            raise AppFailed(f"AOT training run: {exc}") from exc
        problems = api_checks.verify(ctx.app, inst.base_url)
        if problems:
            raise AppFailed("AOT training run failed the contract check: " + "; ".join(problems[:3]))
        for path in ("/fruits", "/todos"):
            ctx.load.closed(inst.load_url + path, connections=4, threads=1, duration_s=int(cfg.training_load_s))
        started = time.monotonic()
        ctx.progress.update("writing the AOT cache")
        # SIGTERM only (no quick SIGKILL): the cache is written while the JVM exits
        procs.stop_group(inst.pid, timeout=cfg.write_timeout_s, proc=inst.running.proc)
        info["exit_code"] = inst.running.proc.returncode
        info["write_s"] = round(time.monotonic() - started, 2)
    finally:
        inst.stop()
    if not cache.exists() or cache.stat().st_size == 0:
        raise AppFailed(f"AOT training did not write a cache (JVM exit {info.get('exit_code')} after "
                        f"{info.get('write_s')} s); see {inst.log_path}")
    info["cache_mb"] = round(cache.stat().st_size / 1e6, 1)
    return _use(cache), info


def run(ctx: Context) -> list[str]:
    """Run the mode's prepare step and AOT training; returns extra JVM options for its launches."""
    app, mode_name = ctx.app, ctx.mode
    mode = app.mode(mode_name)
    ctx.progress.update("preparing the mode")
    prepare(app, mode_name, ctx.lab.log_dir / f"{app.name}-{mode_name}-prepare.log")
    if mode.aot != "train":
        ctx.outcome("ok", "prepared (no AOT cache for this mode)", quiet=True)
        return []
    if not mode.is_jvm:
        raise LabError(f"{app.name} mode {mode_name}: aot = \"train\" needs a JVM mode")
    ctx.progress.update("training the AOT cache")
    opts, info = train(ctx)
    ctx.record("aot_cache_mb", info["cache_mb"], "MB", extra=info)
    ctx.record("aot_cache_write_s", info["write_s"], "s", extra=info)
    ctx.outcome("ok")
    return opts


def applies(app: apps.App, mode_name: str) -> bool:
    mode = app.mode(mode_name)
    return bool(mode.prepare or mode.aot)


def reuse(ctx: Context) -> list[str] | None:
    """A resumed run: the cache this run trained before its interruption, so the launches before and
    after it use the same one and nothing is measured twice (None: it is gone, train again)."""
    mode = ctx.app.mode(ctx.mode)
    prepare(ctx.app, ctx.mode, ctx.lab.log_dir / f"{ctx.app.name}-{ctx.mode}-prepare.log")  # measures nothing
    if mode.aot != "train":
        return []
    cache = _cache(ctx)
    return _use(cache) if cache.exists() and cache.stat().st_size > 0 else None


SCENARIO = Scenario(
    name="aot", title="AOT cache: training and size", phase=Phase.PREPARE, settings=AotSettings, run=run,
    estimate_s=lambda e: e.start_s + 2 * e.settings.training_load_s + 30.0, applies=applies, reuse=reuse,
    not_on=((KUBERNETES, "the AOT cache is trained by a launch on this machine; the cluster's images carry none"),))
