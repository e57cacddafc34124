"""kt2020load: KT-2020's load method on fresh launches of each app/mode.

- memory launches: a fresh launch, a quiet pause (memory at rest), then wrk -t2 -c10 on the GET
  path for memory_load_s (the blog's 1-minute load): peak RSS and peak cgroup memory;
- throughput launches: the GET run on a freshly started app with no warm-up, and the POST run on
  another freshly started one ("cold": the lab's reading of the blog's 10-s runs, whose app state
  the blog does not give); on the GET launch, then a warm-up of both and the two runs again
  ("warm", our addition, shown apart), and on the last one the long GET and POST runs on that
  warmed app. Each measured run records which launch served it and how long
  that launch had been up (app_age_s).

The request paths follow the app's API: KT-2020's own (GET /api/SlimShady, POST /api) or the
contract's (GET /data/SlimShady, POST /data). Apps on the lab's H2 get the seed row back before
every launch and after every POST run: the blog's "as published" services re-create their table
on every POST.
"""

from __future__ import annotations

import time

from perflab import kt2020_api
from perflab.apps import CONTRACT_API
from perflab.instance import Instance, mb
from perflab.placements import KUBERNETES
from perflab.present import kt2020 as kt2020_report
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.scenarios import loadpoint
from perflab.settings import Settings, setting
from perflab.store import Point, point

# (GET path, POST path) by the app's API
PATHS = {kt2020_api.API: (f"/api/{kt2020_api.SEED}", "/api"), CONTRACT_API: (f"/data/{kt2020_api.SEED}", "/data")}
REST, LOAD = point("at rest", stage="rest"), point("under load", stage="load", method="GET")


def at(method: str, stage: str) -> Point:
    return point(f"{method} {stage}", method=method, stage=stage)


class Kt2020LoadSettings(Settings):
    launches: int = setting(3, "fresh launches of each kind (memory; GET and POST)", "launches", ge=1)
    threads: int = setting(2, "wrk threads (KT-2020: 2)", ge=1)
    connections: int = setting(10, "wrk connections (KT-2020: 10)", "connections", ge=1)
    run_s: int = setting(10, "each GET and POST run, cold and warm (KT-2020: 10 s)", "s", ge=1)
    warmup_s: int = setting(60, "load before the warm runs, half GET and half POST (not measured)", "s", ge=2)
    long_s: int = setting(900, "the long GET and POST runs on the warmed app of the last launch (KT-2020: 15 min; 0: none)",
                          "s", ge=0)
    rest_s: float = setting(10.0, "quiet pause after the first response before memory at rest", "s", gt=0)
    memory_load_s: int = setting(60, "the load under which peak memory is read (KT-2020: 1 min)", "s", ge=1)
    timeout_s: float = setting(180.0, "how long a launch may take to answer", "s", gt=0)


def _paths(ctx: Context) -> tuple[str, str]:
    return PATHS.get(ctx.app.api, PATHS[CONTRACT_API])


def _reseed(ctx: Context, inst: Instance | None = None) -> None:
    """The seed row back in the H2 apps' table; with a running instance, until it reads it back
    (an as-published app may still be working off POSTs the load left queued)."""
    if ctx.app.db_server != "h2" or ctx.lab.h2 is None:
        return
    for _ in range(10):
        ctx.lab.h2.seed()
        if inst is None or kt2020_api.get(inst.base_url, kt2020_api.SEED).status == 200:
            return
        time.sleep(0.5)
    raise RuntimeError(f"{ctx.app.name} does not read the seed row back after it was reloaded")


def _launch(ctx: Context, tag: str) -> Instance:
    _reseed(ctx)
    inst = ctx.launch(tag)
    try:
        inst.first_response(_paths(ctx)[0], ctx.settings.timeout_s)
    except BaseException:
        inst.stop()
        raise
    return inst


def _load(ctx: Context, inst: Instance, method: str, seconds: int, at_point: Point | None, repeat: int) -> None:
    """One wrk run of GET or POST; recorded at `at_point` (None: a warm-up, not recorded)."""
    cfg: Kt2020LoadSettings = ctx.settings
    get_path, post_path = _paths(ctx)
    threads = min(cfg.threads, cfg.connections)
    window = loadpoint.open_window(ctx.lab)
    if method == "GET":
        result = ctx.load.closed(inst.load_url + get_path, connections=cfg.connections, threads=threads,
                                 duration_s=seconds)
    else:
        result = ctx.load.closed(inst.load_url, connections=cfg.connections, threads=threads, duration_s=seconds,
                                 script="post_data", script_args={"path": post_path})
    if at_point is not None:
        ctx.inst = inst
        loadpoint.record(ctx, at_point, repeat, result, window)
    if method == "POST":
        _reseed(ctx, inst)  # the as-published services keep only the last row posted


def _memory_launch(ctx: Context, r: int) -> None:
    cfg: Kt2020LoadSettings = ctx.settings
    inst = _launch(ctx, f"kt-mem{r}")
    try:
        rest_from = time.monotonic_ns()
        time.sleep(cfg.rest_s)
        series = inst.sampler.snapshot()
        half = rest_from + int(cfg.rest_s * 0.5e9)  # the second half of the pause: what an idle process keeps
        ctx.record("rss_rest_mb", mb(series.mean("rss_bytes", half)), "MB", at=REST, repeat=r)
        _record_cgroup(ctx, inst, "rest", series.mean("cgroup_memory_bytes", half), REST, r)
        load_from = time.monotonic_ns()
        _load(ctx, inst, "GET", cfg.memory_load_s, LOAD, r)
        _record_cgroup(ctx, inst, "peak", inst.sampler.snapshot().peak("cgroup_memory_bytes", load_from), LOAD, r)
        inst.check_alive()
    finally:
        inst.stop()


def _record_cgroup(ctx: Context, inst: Instance, which: str, current: float | None, at_point: Point, r: int) -> None:
    """The cgroup's memory as sampled (memory.current), and as docker stats shows it: less the
    inactive file pages, read now (at the end of the pause or of the load)."""
    ctx.record(f"cgroup_{which}_mb", mb(current), "MB", at=at_point, repeat=r)
    inactive = inst.cgroup.memory_inactive_file() if inst.cgroup is not None else None
    if current is not None and inactive is not None:
        ctx.record(f"docker_{which}_mb", mb(current - inactive), "MB", at=at_point, repeat=r)


def _record_launch(ctx: Context, inst: Instance, at_point: Point, r: int, run_from_ns: int) -> None:
    """Which launch served a measured run, and how long it had been up when the run began: the
    cold runs' "freshly started app" shows here."""
    ctx.record("app_age_s", (run_from_ns - inst.spawn_ns) / 1e9, "s", at=at_point, repeat=r,
               extra={"launch": inst.tag, "pid": inst.pid})


def _measured(ctx: Context, inst: Instance, method: str, seconds: int, at_point: Point, r: int) -> None:
    _record_launch(ctx, inst, at_point, r, time.monotonic_ns())
    _load(ctx, inst, method, seconds, at_point, r)


def _throughput_launches(ctx: Context, r: int, last: bool) -> None:
    """The lab reads the blog's GET and POST as each run on a freshly started app: the cold POST run
    gets a launch of its own. The GET launch then goes on to the warm-up, the warm runs and (last)
    the long runs."""
    cfg: Kt2020LoadSettings = ctx.settings
    inst = _launch(ctx, f"kt-get{r}")
    try:
        _measured(ctx, inst, "GET", cfg.run_s, at("GET", "cold"), r)
        for method in ("GET", "POST"):
            _load(ctx, inst, method, cfg.warmup_s // 2, None, r)
        for method in ("GET", "POST"):
            _measured(ctx, inst, method, cfg.run_s, at(method, "warm"), r)
        if last and cfg.long_s:
            for method in ("GET", "POST"):
                ctx.progress.update(f"long {method} ({cfg.long_s} s)")
                _measured(ctx, inst, method, cfg.long_s, at(method, "long"), 0)
        inst.check_alive()
    finally:
        inst.stop()
    inst = _launch(ctx, f"kt-post{r}")
    try:
        _measured(ctx, inst, "POST", cfg.run_s, at("POST", "cold"), r)
        inst.check_alive()
    finally:
        inst.stop()


def run(ctx: Context) -> None:
    n = ctx.settings.launches
    for r in range(n):
        ctx.progress.update(f"memory launch {r + 1}/{n}")
        _memory_launch(ctx, r)
        ctx.progress.update(f"GET and POST launches {r + 1}/{n}")
        _throughput_launches(ctx, r, last=r == n - 1)
    ctx.outcome("ok")


def estimate_s(e: Estimate) -> float:
    s: Kt2020LoadSettings = e.settings
    memory = e.start_s + s.rest_s + s.memory_load_s + 3
    get_launch = e.start_s + 3 * s.run_s + s.warmup_s + 5  # cold GET, warm-up, warm GET and POST
    post_launch = e.start_s + s.run_s + 3  # the cold POST on a launch of its own
    return s.launches * (memory + get_launch + post_launch) + 2 * s.long_s


def describe(p: dict, plan: dict) -> str:
    return (f"{p.get('launches', '?')} fresh launches each: memory at rest after {p.get('rest_s', '?')} s and its "
            f"peak under wrk -t{p.get('threads', '?')} -c{p.get('connections', '?')} for {p.get('memory_load_s', '?')} s; "
            f"GET and POST for {p.get('run_s', '?')} s, each on a freshly started app (cold); on the GET launch, both "
            f"again after a {p.get('warmup_s', '?')} s warm-up (warm), and on the last one GET and POST for "
            f"{p.get('long_s', '?')} s on the warmed app (long).")


SCENARIO = Scenario(
    name="kt2020load", title="KT-2020's method: memory, GET and POST on fresh and warmed launches",
    phase=Phase.OWN_AFTER, settings=Kt2020LoadSettings, run=run, estimate_s=estimate_s,
    tables=kt2020_report.tables, remarks=kt2020_report.remarks, describe=describe,
    not_on=((KUBERNETES, "KT-2020's load is wrk on this machine, as the study ran it; the cluster's driver pod "
                        "runs oha"),))
