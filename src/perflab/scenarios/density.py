"""density: how many instances of an app/mode fit one memory budget, measured rather than computed
(public labs divide a budget by one instance's RSS; RT-2019 multiplied one process's throughput).

All instances share one cgroup whose memory limit is the budget (default 2048 MB) on the app's
CPUs, as pods share a node. They are started one after another, each on its own port and each
waited to readiness, until one fails to start or become ready, the kernel OOM-kills one, the
budget is exceeded, or max_instances is reached. With the memory limit enforced the kernel is the
judge of "exceeded" (it reclaims cache first and OOM-kills only when the instances' memory truly
does not fit); without enforcement the sum of the instances' RSS against the budget is used.

Recorded: instances that fit and stayed up, each one's RSS at rest (their median [min-max] is the
per-instance figure), the total, the memory of exactly 10 instances when the 10th was up, the
reason the ramp stopped, and every instance lost on the way (reported, not fatal).

Then all fitting instances are loaded together for load_duration_s by ONE wrk process whose
threads are each bound to one instance (wrk's setup() hook gives every thread its own address):
all instances are under load in the same window, so the aggregate is what the shared CPUs and
budget really deliver together, counted by one driver with one clock, one latency distribution
and one driver-CPU figure for the driver-bound check. Loading instances one at a time would give
each the whole CPU and reproduce the projection instead of testing it; several wrk processes would
start and stop at slightly different moments and split the accounting. Beside it: RT-2019's
projection, instances x one instance's max req/s (from this run's sweep on the same path, else
measured on the first instance alone before the others start).

Each instance's DB pool is 1..connections_per_instance (capped so all instances together stay
within the server's max_connections): the same for every framework, and recorded.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from perflab import apps, isolate, postgres, probes, procs, signals
from perflab.drivers import wrk
from perflab.errors import LabError
from perflab.instance import Instance, InstanceSpec, mb
from perflab.lab import AppFailed, Lab
from perflab.scenarios import latency, loadpoint

STOP_MAX = "max-instances"
STOP_NOT_READY = "not-ready"
STOP_OOM = "oom-kill"
STOP_BUDGET = "budget"
TEN = 10
DENSITY_SAMPLE_HZ = 5.0  # per instance: dozens of samplers at the plan's 20 Hz would load the lab's CPU
DB_CONNECTIONS_SPARE = 20  # left for the lab itself and anything else using the server
PORT_RETRIES = 2
AT_LIMIT = 0.98  # of the budget: the group's memory was at its limit under load
APP_SATURATED = 0.8  # of the CPUs the instances may use: below, the aggregate was limited elsewhere


def steps(plan, target_label: str, start_s: float) -> list[tuple[str, float]]:
    d = plan["density"]
    # later instances start slower: they share the CPUs with the ones already up
    ramp = d["max_instances"] * (start_s * 1.3 + 1.0)
    load = d["warmup_s"] + d["load_duration_s"] + 10.0
    return [(f"{target_label} density", ramp + plan["memory"]["rest_s"] + load)]


@dataclass
class Member:
    index: int                  # 1-based launch order
    inst: Instance
    ready_ms: float | None = None
    lost: str = ""              # why it is gone ("" while it runs)
    lost_while_up: bool = False  # it had been ready (not the instance whose start failed)


@dataclass
class Ramp:
    members: list[Member] = field(default_factory=list)
    stop_kind: str = ""
    stop_reason: str = ""
    ten: dict | None = None     # the memory of 10 instances when the 10th was up
    oom_seen: int = 0

    def alive(self) -> list[Member]:
        return [m for m in self.members if not m.lost]


def spread_script(ports: list[int]) -> str:
    """A wrk script whose thread i sends to ports[i] (threads = instances)."""
    listed = ", ".join(str(p) for p in ports)
    return ("-- perflab density: each wrk thread loads its own instance\n"
            f"local ports = {{{listed}}}\n"
            "local assigned = 0\n"
            "function setup(thread)\n"
            "  assigned = assigned + 1\n"
            "  local port = ports[(assigned - 1) % #ports + 1]\n"
            "  thread.addr = wrk.lookup(\"127.0.0.1\", tostring(port))[1]\n"
            "end\n")


def db_pool(lab: Lab, max_instances: int, per_instance: int) -> tuple[int, int, int | None]:
    """(pool min, pool max, the server's max_connections if known) for each density instance."""
    try:
        server_max = int(postgres.run_sql(lab.db, "SHOW max_connections", timeout=10).strip())
    except (LabError, ValueError, OSError):
        server_max = None
    room = (server_max or 100) - DB_CONNECTIONS_SPARE
    return 1, max(1, min(20, per_instance, room // max(1, max_instances))), server_max


def _make_group(lab: Lab, app: apps.App, mode: str, budget_mb: int) -> isolate.Cgroup:
    limits = isolate.Limits(cpus=lab.topology.app, cpu_quota=float(lab.plan["limits"]["cpus"]), memory_mb=budget_mb)
    group = isolate.Cgroup(lab.run_id, f"{app.name}-{mode}-density", limits, setup=lab.setup)
    # On cgroup v2 the lab's groups kill every member on OOM, as a container does; here the
    # instances stand for separate pods, so the kernel must kill only the one it chooses.
    for directory in group.dirs:
        oom_group = directory / "memory.oom.group"
        if oom_group.exists():
            oom_group.write_text("0")
    return group


def _check_losses(lab: Lab, app: apps.App, mode: str, ramp: Ramp, group: isolate.Cgroup, budget_mb: int,
                  phase: str) -> list[Member]:
    """Mark instances that ended since the last check, report each; returns them."""
    oom_now = group.oom_kills() or 0
    oom_grew = oom_now > ramp.oom_seen
    ramp.oom_seen = oom_now
    gone = []
    for m in ramp.alive():
        code = m.inst.exited()
        if code is None:
            continue
        if oom_grew and code == -9:
            m.lost = f"OOM-killed in the {budget_mb} MB budget"
        else:
            m.lost = f"killed by signal {-code}" if code < 0 else f"exited with code {code}"
        if m.ready_ms is not None:  # the instance being started is judged by the ramp itself
            m.lost_while_up = True
            lab.outcome(app.name, mode, "density", "instance-lost",
                        f"instance {m.index} (port {m.inst.port}) {m.lost} during {phase}")
            gone.append(m)
    return gone


def _ramp_up(lab: Lab, app: apps.App, mode: str, spec: InstanceSpec, group: isolate.Cgroup, ramp: Ramp,
             on_first) -> None:
    cfg = lab.plan["density"]
    budget = cfg["budget_mb"]
    enforced = bool(group.enforced.get("memory"))
    timeout = lab.plan["startup"]["timeout_s"]
    ramp.oom_seen = group.oom_kills() or 0
    for k in range(1, cfg["max_instances"] + 1):
        lab.progress.update(f"instance {k} starting ({len(ramp.alive())} up)")
        for attempt in range(1 + PORT_RETRIES):
            tag = f"density{k}" + (f"-retry{attempt}" if attempt else "")
            member = Member(k, Instance(spec, procs.free_port(), tag=tag))
            ramp.members.append(member)  # from here on, teardown stops it whatever happens
            try:
                member.inst.start()
            except LabError as exc:
                member.lost = f"could not be launched: {exc}"
                if k == 1:
                    raise AppFailed(f"density: {member.lost}") from exc
                ramp.stop_kind, ramp.stop_reason = STOP_NOT_READY, f"instance {k} {member.lost}"
                return
            ready = probes.wait_ready(member.inst.base_url + app.ready_path, member.inst.spawn_ns,
                                      member.inst.running.proc, timeout_s=timeout, interval_ms=20)
            if ready.ok or not lost_its_port(member.inst):
                break
            member.lost = f"its port {member.inst.port} was taken before it could bind it (retried on another)"
            member.inst.stop()
        oom_before = ramp.oom_seen
        _check_losses(lab, app, mode, ramp, group, budget, f"the start of instance {k}")
        oom = ramp.oom_seen > oom_before
        if not ready.ok:
            why = member.lost or ready.reason
            if not member.lost:  # not ready in time: it does not count, and must not hold memory
                member.lost = f"not ready: {why}"
                member.inst.stop()
            if k == 1 and not oom:
                raise AppFailed(f"density: the first instance was not ready: {why}")
            ramp.stop_kind = STOP_OOM if oom else STOP_NOT_READY
            ramp.stop_reason = (f"an OOM kill in the {budget} MB budget while instance {k} started" if oom
                                else f"instance {k} did not become ready: {why}")
            return
        member.ready_ms = ready.elapsed_ms
        if oom:
            ramp.stop_kind = STOP_OOM
            ramp.stop_reason = f"an OOM kill in the {budget} MB budget while instance {k} started"
            return
        alive = ramp.alive()
        total_rss = sum(m.inst.sampler.sample_now().rss_bytes or 0 for m in alive)
        if not enforced and total_rss >= budget * 1024 * 1024:
            member.lost = "over the budget (limit not enforced: RSS sum)"
            member.inst.stop()
            ramp.stop_kind = STOP_BUDGET
            ramp.stop_reason = (f"with instance {k} the instances' RSS ({mb(total_rss):.0f} MB) reached the "
                                f"{budget} MB budget (memory limit not enforced here)")
            return
        if len(alive) == TEN and ramp.ten is None:
            ramp.ten = {"rss_mb": mb(total_rss), "cgroup_mb": mb(group.memory_current()),
                        "at_s": round((time.monotonic_ns() - ramp.members[0].inst.spawn_ns) / 1e9, 3)}
        if k == 1:
            on_first(member.inst)
    ramp.stop_kind = STOP_MAX
    ramp.stop_reason = f"max_instances ({cfg['max_instances']}) reached: the budget was not the limit"


def lost_its_port(inst: Instance) -> bool:
    """Did the instance exit because its port was taken between choosing it and binding it (by
    any process on the machine opening connections meanwhile)? That says nothing about density."""
    if inst.exited() is None:
        return False
    try:
        tail = inst.log_path.read_bytes()[-20000:].decode("utf-8", "replace").lower()
    except OSError:
        return False
    return "address already in use" in tail


class _GroupWatch:
    """The shared cgroup's memory, sampled in a thread (its peak under the aggregate load)."""

    def __init__(self, group: isolate.Cgroup, hz: float = 10.0) -> None:
        self.group, self.period = group, 1.0 / hz
        self.peak: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="density-group-watch", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            value = self.group.memory_current()
            if value is not None:
                self.peak = value if self.peak is None else max(self.peak, value)
            self._stop.wait(self.period)

    def __enter__(self) -> "_GroupWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(2)


def _rest(lab: Lab, app, mode, ramp: Ramp, group: isolate.Cgroup, seconds: float, base_extra: dict) -> None:
    """A quiet pause, then each surviving instance's RSS (mean of the pause's second half)."""
    lab.progress.update(f"{len(ramp.alive())} instances at rest {seconds:.0f}s")
    start = time.monotonic_ns()
    group_readings: list[tuple[int, int]] = []
    while time.monotonic_ns() - start < seconds * 1e9:
        value = group.memory_current()
        if value is not None:
            group_readings.append((time.monotonic_ns(), value))
        time.sleep(0.25)
    half = start + int(seconds * 0.5e9)
    _check_losses(lab, app, mode, ramp, group, lab.plan["density"]["budget_mb"], "the rest")
    total = 0.0
    for m in ramp.alive():
        rss = m.inst.sampler.snapshot().mean("rss_bytes", half)
        if rss is None:
            rss = m.inst.sampler.sample_now().rss_bytes
        total += rss or 0
        lab.record(app.name, mode, "density", "instance_rss_mb", mb(rss), "MB", point="rest", repeat=m.index,
                   extra={**base_extra, "port": m.inst.port})
    if ramp.alive():
        lab.record(app.name, mode, "density", "total_rss_mb", mb(total), "MB", point="rest", extra=base_extra)
    late = [v for t, v in group_readings if t >= half] or [v for _, v in group_readings]
    if late:
        lab.record(app.name, mode, "density", "cgroup_memory_mb", mb(sum(late) / len(late)), "MB", point="rest",
                   extra={**base_extra, "note": "the budget group's memory, page cache included"})


def _aggregate_load(lab: Lab, app, mode, ramp: Ramp, group: isolate.Cgroup, single: tuple[float, str] | None,
                    base_extra: dict) -> None:
    cfg = lab.plan["density"]
    per = cfg["connections_per_instance"]
    lost_in_warmup: list[Member] = []

    def drive(members: list[Member], seconds: float, directory: Path):
        # one wrk thread per instance; a dead instance's thread would spin on refused connections
        script = directory / f"spread-{len(members)}.lua"
        script.write_text(spread_script([m.inst.port for m in members]))
        return wrk.run_wrk(members[0].inst.base_url + cfg["load_path"], connections=len(members) * per,
                           threads=len(members), duration_s=int(max(1, seconds)), cpus=lab.driver_cpus(),
                           script=script)

    with tempfile.TemporaryDirectory(prefix="perflab-density-") as tmp, _GroupWatch(group) as watch:
        if cfg["warmup_s"] >= 1:
            lab.progress.update(f"aggregate load on {len(ramp.alive())} instances: warm-up {cfg['warmup_s']:.0f}s")
            drive(ramp.alive(), cfg["warmup_s"], Path(tmp))
            lost_in_warmup = _check_losses(lab, app, mode, ramp, group, cfg["budget_mb"], "the aggregate warm-up")
        members = ramp.alive()
        if not members:
            raise RuntimeError("every instance was lost during the aggregate warm-up")
        n = len(members)
        lab.progress.update(f"aggregate load on {n} instances, c={per} each")
        cpu_before, db_before, t0 = group.cpu_usage_s(), lab.db_cpu_s(), time.monotonic()
        result = drive(members, cfg["load_duration_s"], Path(tmp))
        cpu_after, db_after, wall = group.cpu_usage_s(), lab.db_cpu_s(), time.monotonic() - t0
    lost = lost_in_warmup + _check_losses(lab, app, mode, ramp, group, cfg["budget_mb"], "the aggregate load")
    app_share = (cpu_after - cpu_before) / wall if None not in (cpu_before, cpu_after) and wall > 0 else None
    db_share = (db_after - db_before) / wall if None not in (db_before, db_after) and wall > 0 else None
    quota = min(float(lab.plan["limits"]["cpus"]), len(lab.topology.app))
    flags = loadpoint.flags_of(result) + (["instance-lost"] if lost else [])
    if app_share is not None and app_share < APP_SATURATED * quota:
        # the instances had CPU to spare: the aggregate was limited elsewhere (DB, driver, pools,
        # or memory: a group at its limit spends its time reclaiming)
        flags.append("app-not-saturated")
    if watch.peak is not None and watch.peak >= AT_LIMIT * cfg["budget_mb"] * 1024 * 1024:
        flags.append("memory-limit-reached")
    extra = {**base_extra, "instances_loaded": n, "connections_per_instance": per, "connections": n * per,
             "threads": n, "driver": f"{result.driver} {result.driver_version}", "driver_cpus": result.driver_cpus,
             "driver_bound_reason": result.driver_bound_reason, "errors": result.errors.__dict__,
             "warmup_s": cfg["warmup_s"], "duration_s": result.duration_s, "path": cfg["load_path"],
             "app_cpus": quota,
             "lost_during_load": [m.index for m in lost]}
    point = "load"
    put = lambda metric, value, unit: lab.record(app.name, mode, "density", metric, value, unit,  # noqa: E731
                                                 point=point, flags=flags, extra=extra)
    put("aggregate_rps", result.rps, "req/s")
    put("requests", result.requests, "count")
    put("errors", result.errors.total, "count")
    put("latency_mean_ms", result.latency.mean_ms, "ms")
    put("latency_p99_ms", result.latency.percentile("99"), "ms")
    put("latency_max_ms", result.latency.max_ms, "ms")
    put("driver_cpu_util", result.driver_cpu_utilisation, "ratio")
    put("app_cpu_share", app_share, "cpus")
    put("db_cpu_share", db_share, "cpus")
    if watch.peak is not None:
        put("cgroup_peak_mb", mb(watch.peak), "MB")
    lab.store.add_file(lab.run_id, app.name, mode, "density", "driver-output", "aggregate-load.txt", result.raw_output)
    if single is not None and single[0] > 0:
        top, source = single
        projection = {**extra, "single_instance_max_rps": top, "single_source": source,
                      "method": "RT-2019: instances x one instance's max req/s"}
        lab.record(app.name, mode, "density", "single_instance_max_rps", top, "req/s", point=point,
                   extra={"source": source})
        lab.record(app.name, mode, "density", "projected_rps", n * top, "req/s", point=point, extra=projection)
        lab.record(app.name, mode, "density", "aggregate_vs_projection", result.rps / (n * top), "ratio",
                   point=point, flags=flags, extra=projection)


def run(lab: Lab, app: apps.App, mode: str) -> None:
    cfg = lab.plan["density"]
    budget = cfg["budget_mb"]
    pool_min, pool_max, server_max = db_pool(lab, cfg["max_instances"], cfg["connections_per_instance"])
    ramp = Ramp()
    single: list[tuple[float, str]] = []
    notes: list[str] = []

    def on_first(inst: Instance) -> None:
        """With one instance up and alone: its max req/s, unless the sweep measured it already."""
        lab.progress.update("one instance's max req/s")
        try:
            single.append(latency.max_rps(lab, inst, cfg["load_path"]))
        except (RuntimeError, OSError, ValueError) as exc:
            notes.append(f"one instance's max req/s not measured: {exc}")

    group = None
    try:
        group = _make_group(lab, app, mode, budget)
        spec = lab.spec(app, mode, memory_mb=budget, cgroup=group)
        spec = dataclasses.replace(spec, db_env={**spec.db_env, "DB_POOL_MIN": str(pool_min),
                                                 "DB_POOL_MAX": str(pool_max)},
                                   sample_hz=min(spec.sample_hz, DENSITY_SAMPLE_HZ))
        _ramp_up(lab, app, mode, spec, group, ramp, on_first)
        fitted = ramp.alive()
        base = {"budget_mb": budget, "memory_enforced": bool(group.enforced.get("memory")),
                "limits": group.describe(), "db_pool": [pool_min, pool_max], "db_max_connections": server_max}
        lost = [{"instance": m.index, "why": m.lost} for m in ramp.members if m.lost]
        summary = {**base, "stop": ramp.stop_kind, "stop_reason": ramp.stop_reason, "lost": lost,
                   "launched": len(ramp.members), "notes": notes}
        flags = ["lower-bound"] if ramp.stop_kind == STOP_MAX else []
        lab.record(app.name, mode, "density", "instances", len(fitted), "count", flags=flags, extra=summary)
        for m in fitted:
            lab.record(app.name, mode, "density", "ready_ms", m.ready_ms, "ms", point="ramp", repeat=m.index,
                       extra={"instances_up_before": m.index - 1})
        if ramp.ten is not None:
            lab.record(app.name, mode, "density", "rss_10_instances_mb", ramp.ten["rss_mb"], "MB", point="10 instances",
                       extra={**base, **ramp.ten, "note": "sum of the 10 instances' RSS when the 10th was ready"})
            lab.record(app.name, mode, "density", "cgroup_10_instances_mb", ramp.ten["cgroup_mb"], "MB",
                       point="10 instances", extra={**base, **ramp.ten})

        def finish(status: str, reason: str) -> None:
            lost_up = [m.index for m in ramp.members if m.lost_while_up]
            lab.record(app.name, mode, "density", "instances_lost", len(lost_up), "count",
                       extra={**summary, "lost_while_up": lost_up})
            lab.outcome(app.name, mode, "density", status, reason)

        if not fitted:
            finish("failed", f"no instance stayed up: {ramp.stop_reason}")
            return
        _rest(lab, app, mode, ramp, group, lab.plan["memory"]["rest_s"], base)
        if not ramp.alive():
            finish("failed", "every instance was lost before the aggregate load")
            return
        try:
            _aggregate_load(lab, app, mode, ramp, group, single[0] if single else None, base)
        except (RuntimeError, OSError, ValueError) as exc:  # the driver failed: what was measured stays
            finish("failed", f"aggregate load failed: {exc}")
            return
        finish("ok", f"{len(fitted)} instance(s) in {budget} MB; stopped: {ramp.stop_reason}"
               + (f"; {'; '.join(notes)}" if notes else ""))
    finally:
        with signals.shielded():
            # SIGTERM every instance first so they shut down in parallel, then stop each for good
            for m in ramp.members:
                if m.inst.running is not None and not m.inst.stopped_by_lab:  # its children too
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(m.inst.pid, signal.SIGTERM)
            for m in reversed(ramp.members):
                m.inst.stop()
            if group is not None:
                try:
                    group.close()
                except Exception:  # noqa: BLE001 - cleanup goes on; cleanup_stale() catches leftovers
                    pass
