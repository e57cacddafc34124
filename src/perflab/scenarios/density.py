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

import dataclasses
import time
from dataclasses import dataclass, field

from perflab import postgres, probes, procs
from perflab.errors import AppFailed, BudgetRefused, LabError
from perflab.instance import Instance, InstanceSpec, mb, stop_all
from perflab.lab import Lab
from perflab.placements import BudgetGroup
from perflab.present.tables import Table, by_target_table
from perflab.results import RunView
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.scenarios import latency, loadpoint
from perflab.settings import Settings, setting
from perflab.store import NO_POINT, point

STOP_MAX = "max-instances"
STOP_NOT_READY = "not-ready"
STOP_OOM = "oom-kill"
STOP_BUDGET = "budget"
TEN = 10
DENSITY_SAMPLE_HZ = 5.0  # per instance: dozens of samplers at the plan's 20 Hz would load the lab's CPU
GROUP_SAMPLE_HZ = 10.0  # the shared budget's memory
DB_CONNECTIONS_SPARE = 20  # left for the lab itself and anything else using the server
PORT_RETRIES = 2
AT_LIMIT = 0.98  # of the budget: the group's memory was at its limit under load
APP_SATURATED = 0.8  # of the CPUs the instances may use: below, the aggregate was limited elsewhere
RAMP, REST, LOAD, TEN_UP = (point("ramp", phase="ramp"), point("rest", phase="rest"), point("load", phase="load"),
                            point("10 instances", phase="10 instances"))


class DensitySettings(Settings):
    budget_mb: int = setting(2048, "the memory all instances share (one cgroup)", "MB", ge=64)
    max_instances: int = setting(40, "stop the ramp here even if more would fit", "instances", ge=1)
    load_duration_s: float = setting(10.0, "all instances loaded together", "s", ge=1)
    load_path: str = setting("/fruits", "the path loaded")
    connections_per_instance: int = setting(4, "closed-loop connections per instance", "connections", ge=1)
    warmup_s: float = setting(5.0, "aggregate load before the measured one (not measured)", "s", ge=0)
    rest_s: float = setting(5.0, "quiet pause before the instances' RSS at rest", "s", ge=0)
    timeout_s: float = setting(180.0, "how long an instance may take to become ready", "s", gt=0)
    probe_connections: int = setting(20, "closed-loop probe of one instance's max req/s when the run's sweep did "
                                         "not measure the path", "connections", ge=1)


# an instance's RSS at rest before any was measured here (a Quarkus JVM rests at ~150 MB, a native app at ~30)
REST_GUESS_MB = {True: 150.0, False: 30.0}


def estimate_s(e: Estimate) -> float:
    d: DensitySettings = e.settings
    # the ramp ends where the budget does (and the launch that no longer fits), or at max_instances
    per_mb = e.rest_mb or REST_GUESS_MB[e.jvm]
    launches = min(d.max_instances, int(d.budget_mb // per_mb) + 1)
    # later instances start slower: they share the CPUs with the ones already up
    ramp = launches * (e.start_s * 1.3 + 1.0)
    return ramp + d.rest_s + d.warmup_s + d.load_duration_s + 10.0


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


def db_pool(lab: Lab, max_instances: int, per_instance: int) -> tuple[int, int, int | None]:
    """(pool min, pool max, the server's max_connections if known) for each density instance."""
    try:
        server_max = int(postgres.run_sql(lab.db, "SHOW max_connections", timeout=10).strip())
    except (LabError, ValueError, OSError):
        server_max = None
    room = (server_max or 100) - DB_CONNECTIONS_SPARE
    return 1, max(1, min(20, per_instance, room // max(1, max_instances))), server_max


def _check_losses(ctx: Context, ramp: Ramp, group: BudgetGroup, budget_mb: int, phase: str) -> list[Member]:
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
            ctx.outcome("instance-lost", f"instance {m.index} ({m.inst.tag}) {m.lost} during {phase}")
            gone.append(m)
    return gone


def _ramp_up(ctx: Context, spec: InstanceSpec, group: BudgetGroup, ramp: Ramp, on_first) -> None:
    cfg: DensitySettings = ctx.settings
    budget = cfg.budget_mb
    enforced = group.enforced
    ramp.oom_seen = group.oom_kills() or 0
    for k in range(1, cfg.max_instances + 1):
        ctx.progress.update(f"instance {k} starting ({len(ramp.alive())} up)")
        for attempt in range(1 + PORT_RETRIES):
            tag = f"density{k}" + (f"-retry{attempt}" if attempt else "")
            member = Member(k, group.instance(spec, tag=tag, port=procs.free_port()))
            ramp.members.append(member)  # from here on, teardown stops it whatever happens
            try:
                member.inst.start()
            except BudgetRefused as exc:  # a quota that counts limits: the budget is used up before any OOM
                member.lost = str(exc)
                if k == 1:
                    raise AppFailed(f"density: {member.lost}") from exc
                ramp.stop_kind, ramp.stop_reason = STOP_BUDGET, f"instance {k}: {member.lost}"
                return
            except LabError as exc:
                member.lost = f"could not be launched: {exc}"
                if k == 1:
                    raise AppFailed(f"density: {member.lost}") from exc
                ramp.stop_kind, ramp.stop_reason = STOP_NOT_READY, f"instance {k} {member.lost}"
                return
            try:
                ready, not_ready = member.inst.wait_until_ready(cfg.timeout_s), ""
            except AppFailed as exc:
                ready, not_ready = None, str(exc)
            if ready is not None or not lost_its_port(member.inst):
                break
            member.lost = f"its port {member.inst.port} was taken before it could bind it (retried on another)"
            member.inst.stop()
        oom_before = ramp.oom_seen
        _check_losses(ctx, ramp, group, budget, f"the start of instance {k}")
        oom = ramp.oom_seen > oom_before
        if ready is None:
            why = member.lost or not_ready
            if not member.lost:  # not ready in time: it does not count, and must not hold memory
                member.lost = why
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
    ramp.stop_reason = f"max_instances ({cfg.max_instances}) reached: the budget was not the limit"


def lost_its_port(inst: Instance) -> bool:
    """Did the instance exit because its port was taken between choosing it and binding it (by
    any process on the machine opening connections meanwhile)? That says nothing about density."""
    log = getattr(inst, "log_path", None)  # an instance with a port of its own to lose (not a pod)
    if log is None or inst.exited() is None:
        return False
    try:
        tail = log.read_bytes()[-20000:].decode("utf-8", "replace").lower()
    except OSError:
        return False
    return "address already in use" in tail


def _rest(ctx: Context, ramp: Ramp, group_sampler: probes.ResourceSampler, group: BudgetGroup,
          base_extra: dict) -> None:
    """A quiet pause, then each surviving instance's RSS (mean of the pause's second half)."""
    seconds = ctx.settings.rest_s
    ctx.progress.update(f"{len(ramp.alive())} instances at rest {seconds:.0f}s")
    start = time.monotonic_ns()
    time.sleep(seconds)
    half = start + int(seconds * 0.5e9)
    _check_losses(ctx, ramp, group, ctx.settings.budget_mb, "the rest")
    known = []  # a pod on a cluster has no process here: no RSS, only the group's memory below
    for m in ramp.alive():
        rss = m.inst.sampler.snapshot().mean("rss_bytes", half)
        if rss is None:
            rss = m.inst.sampler.sample_now().rss_bytes
        if rss is not None:
            known.append(rss)
        ctx.record("instance_rss_mb", mb(rss), "MB", at=REST, repeat=m.index, extra={**base_extra, "instance": m.inst.tag, "port": m.inst.port})
    if known:
        ctx.record("total_rss_mb", mb(sum(known)), "MB", at=REST, extra=base_extra)
    readings = group_sampler.snapshot()
    late = readings.mean("cgroup_memory_bytes", half) or readings.mean("cgroup_memory_bytes", start)
    ctx.record("cgroup_memory_mb", mb(late), "MB", at=REST,
               extra={**base_extra, "note": "the budget group's memory, page cache included"})


def _aggregate_load(ctx: Context, ramp: Ramp, group: BudgetGroup, group_sampler: probes.ResourceSampler,
                    single: latency.MaxThroughput | None, base_extra: dict) -> None:
    cfg: DensitySettings = ctx.settings
    lab = ctx.lab
    per = cfg.connections_per_instance
    lost_in_warmup: list[Member] = []

    def drive(members: list[Member], seconds: float):
        return ctx.load.spread([m.inst.load_url + cfg.load_path for m in members], connections_per_url=per,
                               duration_s=int(max(1, seconds)))

    if cfg.warmup_s >= 1:
        ctx.progress.update(f"aggregate load on {len(ramp.alive())} instances: warm-up {cfg.warmup_s:.0f}s")
        drive(ramp.alive(), cfg.warmup_s)
        lost_in_warmup = _check_losses(ctx, ramp, group, cfg.budget_mb, "the aggregate warm-up")
    members = ramp.alive()
    if not members:
        raise RuntimeError("every instance was lost during the aggregate warm-up")
    n = len(members)
    ctx.progress.update(f"aggregate load on {n} instances, c={per} each")
    window = loadpoint.open_window(lab)
    result = drive(members, cfg.load_duration_s)
    end_ns = time.monotonic_ns()
    db_after, wall = lab.db_cpu_s(), (end_ns - window.start_ns) / 1e9
    lost = lost_in_warmup + _check_losses(ctx, ramp, group, cfg.budget_mb, "the aggregate load")
    readings = group_sampler.snapshot()
    app_share = readings.cpu_share("cgroup_cpu_s", window.start_ns, end_ns)
    db_share = (db_after - window.db_cpu_start) / wall if None not in (db_after, window.db_cpu_start) and wall > 0 else None
    peak = readings.peak("cgroup_memory_bytes", window.start_ns, end_ns)
    quota = min(float(ctx.plan["limits"]["cpus"]), len(lab.topology.app))
    flags = loadpoint.flags_of(result) + (["instance-lost"] if lost else [])
    if app_share is not None and app_share < APP_SATURATED * quota:
        # the instances had CPU to spare: the aggregate was limited elsewhere (DB, driver, pools,
        # or memory: a group at its limit spends its time reclaiming)
        flags.append("app-not-saturated")
    if peak is not None and peak >= AT_LIMIT * cfg.budget_mb * 1024 * 1024:
        flags.append("memory-limit-reached")
    extra = {**base_extra, "instances_loaded": n, "connections_per_instance": per, "connections": n * per,
             "threads": n, "driver": f"{result.driver} {result.driver_version}", "driver_cpus": result.driver_cpus,
             "driver_bound_reason": result.driver_bound_reason, "errors": result.errors.__dict__,
             "warmup_s": cfg.warmup_s, "duration_s": result.duration_s, "path": cfg.load_path,
             "app_cpus": quota, "lost_during_load": [m.index for m in lost]}
    put = lambda metric, value, unit: ctx.record(metric, value, unit, at=LOAD, flags=flags, extra=extra)  # noqa: E731
    put("aggregate_rps", result.rps, "req/s")
    put("requests", result.requests, "count")
    put("errors", result.errors.total, "count")
    put("latency_mean_ms", result.latency.mean_ms, "ms")
    put("latency_p99_ms", result.latency.percentile("99"), "ms")
    put("latency_max_ms", result.latency.max_ms, "ms")
    put("driver_cpu_util", result.driver_cpu_utilisation, "ratio")
    put("app_cpu_share", app_share, "cpus")
    put("db_cpu_share", db_share, "cpus")
    put("cgroup_peak_mb", mb(peak), "MB")
    ctx.add_file("driver-output", "aggregate-load.txt", result.raw_output)
    if single is not None and single.rps > 0:
        projection = {**extra, "single_instance_max_rps": single.rps, "single_source": single.source,
                      "method": "RT-2019: instances x one instance's max req/s"}
        ctx.record("single_instance_max_rps", single.rps, "req/s", at=LOAD, extra={"source": single.source})
        ctx.record("projected_rps", n * single.rps, "req/s", at=LOAD, extra=projection)
        ctx.record("aggregate_vs_projection", result.rps / (n * single.rps), "ratio", at=LOAD, flags=flags,
                   extra=projection)


def run(ctx: Context) -> None:
    cfg: DensitySettings = ctx.settings
    budget = cfg.budget_mb
    pool_min, pool_max, server_max = db_pool(ctx.lab, cfg.max_instances, cfg.connections_per_instance)
    ramp = Ramp()
    single: list[latency.MaxThroughput] = []
    notes: list[str] = []

    def on_first(inst: Instance) -> None:
        """With one instance up and alone: its max req/s, unless the sweep measured it already."""
        ctx.progress.update("one instance's max req/s")
        try:
            single.append(latency.max_rps(ctx, inst, cfg.load_path, cfg.probe_connections, cfg.warmup_s))
        except (RuntimeError, OSError, ValueError) as exc:
            notes.append(f"one instance's max req/s not measured: {exc}")

    group = group_sampler = None
    try:
        spec = ctx.spec()
        group = ctx.lab.placement.budget(f"{ctx.app.name}-{ctx.mode}-density", budget, spec)
        group_sampler = probes.ResourceSampler(None, cgroup=group, hz=GROUP_SAMPLE_HZ).start()
        spec = dataclasses.replace(spec, db_env={**spec.db_env, "DB_POOL_MIN": str(pool_min),
                                                 "DB_POOL_MAX": str(pool_max)},
                                   sample_hz=min(spec.sample_hz, DENSITY_SAMPLE_HZ))
        _ramp_up(ctx, spec, group, ramp, on_first)
        fitted = ramp.alive()
        base = {"budget_mb": budget, "memory_enforced": group.enforced,
                "limits": group.describe(), "db_pool": [pool_min, pool_max], "db_max_connections": server_max}
        lost = [{"instance": m.index, "why": m.lost} for m in ramp.members if m.lost]
        summary = {**base, "stop": ramp.stop_kind, "stop_reason": ramp.stop_reason, "lost": lost,
                   "launched": len(ramp.members), "notes": notes}
        flags = ["lower-bound"] if ramp.stop_kind == STOP_MAX else []
        ctx.record("instances", len(fitted), "count", at=NO_POINT, flags=flags, extra=summary)
        for m in fitted:
            ctx.record("ready_ms", m.ready_ms, "ms", at=RAMP, repeat=m.index, extra={"instances_up_before": m.index - 1})
        if ramp.ten is not None:
            ctx.record("rss_10_instances_mb", ramp.ten["rss_mb"], "MB", at=TEN_UP,
                       extra={**base, **ramp.ten, "note": "sum of the 10 instances' RSS when the 10th was ready"})
            ctx.record("cgroup_10_instances_mb", ramp.ten["cgroup_mb"], "MB", at=TEN_UP, extra={**base, **ramp.ten})

        def finish(status: str, reason: str) -> None:
            lost_up = [m.index for m in ramp.members if m.lost_while_up]
            ctx.record("instances_lost", len(lost_up), "count", at=NO_POINT, extra={**summary, "lost_while_up": lost_up})
            ctx.outcome(status, reason)

        if not fitted:
            finish("failed", f"no instance stayed up: {ramp.stop_reason}")
            return
        _rest(ctx, ramp, group_sampler, group, base)
        if not ramp.alive():
            finish("failed", "every instance was lost before the aggregate load")
            return
        try:
            _aggregate_load(ctx, ramp, group, group_sampler, single[0] if single else None, base)
        except (RuntimeError, OSError, ValueError) as exc:  # the driver failed: what was measured stays
            finish("failed", f"aggregate load failed: {exc}")
            return
        finish("ok", f"{len(fitted)} instance(s) in {budget} MB; stopped: {ramp.stop_reason}"
               + (f"; {'; '.join(notes)}" if notes else ""))
    finally:
        stop_all([m.inst for m in ramp.members])
        if group_sampler is not None:
            group_sampler.stop()
        if group is not None:
            try:
                group.close()
            except Exception:  # noqa: BLE001 - cleanup goes on; cleanup_stale() catches leftovers
                pass


def tables(view: RunView) -> list[Table]:
    out = []
    on_cluster = (view.plan.get("placement") or {}).get("kind") == "kubernetes"
    for key, title, at, metrics in (
            ("density-fit", "Pods admitted by the quota" if on_cluster else "Instances in the budget", "",
             ["instances", "instances_lost"]),
            ("density-rest", "Memory at rest (MB)", "rest", ["instance_rss_mb", "total_rss_mb", "cgroup_memory_mb"]),
            ("density-load", "All instances loaded together (req/s)", "load",
             ["aggregate_rps", "projected_rps", "aggregate_vs_projection"])):
        t = by_target_table(view, key, title, view.find("density", point=at), metrics,
                            note=quota_note(view.plan) if on_cluster and key == "density-fit" else "")
        if t:
            out.append(t)
    return out


def quota_note(plan: dict) -> str:
    """Beside a cluster's density figures: what they count, a quota of memory limits, not memory used."""
    budget = (plan.get("density") or {}).get("budget_mb", DensitySettings().budget_mb)
    limit = (plan.get("limits") or {}).get("memory_mb")
    each = f" ({limit} MB each)" if isinstance(limit, (int, float)) else ""
    return (f"on a cluster, density counts the pods' memory limits{each} against a ResourceQuota of {budget} MB, "
            "not the memory they use: a pod is refused once the limits' sum would pass the quota, however little "
            "each uses. The figure is how many pods the cluster admits at that limit, not how many fit in the "
            "memory (the question density answers on one machine)")


def describe(p: dict, plan: dict) -> str:
    """What the budget counts depends on the placement: say which, since the two answer different questions."""
    budget, most = p.get("budget_mb", "?"), p.get("max_instances", "?")
    loaded = (f" Then all of them loaded together for {p.get('load_duration_s', '?')} s by one driver, "
              f"{p.get('connections_per_instance', '?')} connections each, "
              f"after {p.get('warmup_s', '?')} s of warm-up.")
    if (plan.get("placement") or {}).get("kind") == "kubernetes":
        limit = (plan.get("limits") or {}).get("memory_mb")
        cap = (f"at most {int(budget // limit)} pods of {limit} MB fit, however little each uses"
               if isinstance(budget, (int, float)) and isinstance(limit, (int, float)) and limit > 0
               else "the pods' limits, not their use, decide how many fit")
        return (f"pods started one by one, each waited to readiness, in a namespace whose ResourceQuota allows "
                f"{budget} MB of memory limits, until the quota refuses one, one is OOM-killed or not ready, or "
                f"{most} are up. The quota counts each pod's memory limit, not what it uses: {cap}. That is how "
                f"many pods a cluster admits, not how many fit in the memory, which is what density measures on one "
                f"machine.{loaded}")
    return (f"instances started one by one, each waited to readiness, in one cgroup whose memory limit is {budget} MB, "
            f"until the kernel OOM-kills one (where the limit is not enforced: until their RSS sum reaches it), one is "
            f"not ready, or {most} are up: what the instances really use decides how many fit.{loaded}")


SCENARIO = Scenario(
    name="density", title="Density: instances in a memory budget", phase=Phase.OWN_AFTER, settings=DensitySettings,
    sends_load=True,
    run=run, estimate_s=estimate_s, tables=tables, needs=("sweep",), describe=describe,
    legacy_params=lambda label: {"phase": label} if label else {})
