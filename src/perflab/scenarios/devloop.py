"""devloop: the developer's loop, measured (LAB-2020 4.1). Per app, on a working copy under the
lab's work directory: each loop the app has (Quarkus dev mode, Spring Boot DevTools with the
IDE's compile done by the lab, stop-rebuild-restart for every app) is started against the lab's
PostgreSQL, then per repeat /hello's text is changed, an edit that does not compile is saved and
then fixed. Figures: save -> first response showing the change, the steps the lab took, how long
until a broken build is visible and where its meaningful line is, the loop's start time and the
RSS of its process tree, and whether the app kept its DB connections across the change.

With an app of a framework, the stream app of the same framework (api = "stream", e.g.
stream-spring with spring-boot) runs the same loops on a private Kafka broker (LAB-2020 4.1.2):
its transformation is changed and the change counts as visible once a record sent after the save
comes out transformed the new way; a broker restart, when one is needed, is a step of its own.

The tracked sources are never edited (the working copy is removed on every way out); the loop
runs without the plan's cgroup limits, as on a developer's machine, on the app's main mode only.
"""

from __future__ import annotations

import dataclasses
import time

from perflab import apps, kafka, postgres, procs
from perflab.devloop import claims
from perflab.devloop.edits import HELLO, TRANSFORM, HelloSource
from perflab.devloop.loops import Loop, loops_for
from perflab.devloop.roundtrip import BROKEN, LoopResult, Script
from perflab.devloop.stream import StreamScript
from perflab.devloop.workcopy import WorkingCopy
from perflab.errors import LabError
from perflab.scenario import Context, Estimate, Phase, Scenario, point
from perflab.settings import Settings, setting

STREAM_API = "stream"


class DevloopSettings(Settings):
    repeats: int = setting(3, "edit round trips per loop (each: a change, a broken edit, its fix)", "round trips", ge=1)
    broken: bool = setting(True, "also save an edit that does not compile, then its fix")
    restart_too: bool = setting(True, "also time stop-rebuild-restart for apps that have a dev mode or DevTools")
    streams: bool = setting(True, "also run the stream app of the same framework on a private Kafka broker")
    timeout_s: float = setting(300.0, "how long a loop may take to start, or a change to show", "s", gt=0)
    poll_ms: float = setting(50.0, "poll interval while waiting for a change to show", "ms", gt=0)


def _backends(ctx: Context):
    """The DB's backend pids of the app's user (the lab's psql excluded): a kept pool keeps them."""
    conn = ctx.lab.db
    sql = ("select pid from pg_stat_activity where backend_type = 'client backend' "
           f"and usename = '{conn.user}' and pid <> pg_backend_pid()")

    def read() -> set[int]:
        try:
            return {int(x) for x in postgres.run_sql(conn, sql, timeout=10).split()}
        except LabError:
            return set()
    return read


def _record(ctx: Context, result: LoopResult, stream: bool) -> None:
    at = point(result.kind, loop=result.kind)
    ctx.record("start_s", result.start_s, "s", at=at)
    ctx.record("rss_started_mb", result.rss_started_mb, "MB", at=at)
    ctx.record("rss_after_edits_mb", result.rss_after_mb, "MB", at=at)
    if stream:
        restarts = sum(t.steps.count("broker restart") for t in result.trips)
        ctx.record("broker_restarts", restarts, "restarts", at=at)
    for trip in result.trips:
        where = point(f"{result.kind} {trip.edit}", loop=result.kind, edit=trip.edit)
        extra = {"steps_after_save": trip.steps, "where": trip.where, "note": trip.note}
        flags = [] if trip.seconds is not None else ["not-visible"]
        metric = "error_visible_s" if trip.edit == BROKEN else "round_trip_s"
        # a change that never showed is stored at the timeout, flagged, so it is not silently missing
        seconds = trip.seconds if trip.seconds is not None else ctx.settings.timeout_s
        ctx.record(metric, seconds, "s", at=where, repeat=trip.repeat, extra=extra, flags=flags)
        # the steps by name in the point, so the report can list them beside LAB-2020's
        named = point(where.label, **where.params, after_save=list(trip.steps))
        ctx.record("steps", len(claims.BY_HAND) + len(trip.steps), "steps", at=named, repeat=trip.repeat, extra=extra)
        ctx.record("error_line", trip.line, "line", at=where, repeat=trip.repeat, extra=extra)
        ctx.record("app_restarts", trip.restarts, "restarts", at=where, repeat=trip.repeat)
        if trip.db_kept is not None:
            ctx.record("db_connections_kept", float(trip.db_kept), "yes=1", at=where, repeat=trip.repeat)


def _loop(ctx: Context, kind: type[Loop], source: HelloSource, env: dict[str, str], broken: bool,
          broker) -> LoopResult:
    """One loop scripted on a fresh working copy; raises LabError (Unavailable with its status)
    when it cannot run."""
    cfg: DevloopSettings = ctx.settings
    ctx.progress.update(f"{ctx.app.name} {kind.kind}: working copy")
    with WorkingCopy(ctx.app) as wc:
        loop = kind(wc, ctx.mode, procs.free_port(), env, ctx.lab.log_dir, cfg.timeout_s,
                    list(ctx.plan["limits"]["jvm_opts"]))
        args = (loop, source, ctx.app.first_response_path, cfg.poll_ms / 1e3, _backends(ctx))
        say = lambda text: ctx.progress.update(f"{ctx.app.name} {text}")  # noqa: E731
        script = StreamScript(*args, broker=broker, say=say) if broker else Script(*args, say=say)
        try:
            return script.run(cfg.repeats, broken)
        finally:
            loop.stop()


def _loops(ctx: Context, source: HelloSource, env: dict[str, str], broken: bool, broker=None) -> None:
    cfg: DevloopSettings = ctx.settings
    kinds = loops_for(ctx.app.name, ctx.app.framework)
    if not cfg.restart_too and len(kinds) > 1:
        kinds = kinds[:1]
    for kind in kinds:
        try:
            result = _loop(ctx, kind, source, env, broken, broker)
        except LabError as exc:
            # this loop only (e.g. its build failed in the working copy): the app's other loops still run
            ctx.outcome(getattr(exc, "status", "failed"), exc.message, part=kind.kind)
            continue
        _record(ctx, result, stream=broker is not None)
        lost = [t for t in result.trips if t.seconds is None]
        ctx.outcome("ok" if not lost else "failed",
                    "" if not lost else f"{len(lost)} change(s) never showed: {lost[0].note[:300]}", part=kind.kind)


def stream_apps(framework: str) -> list[apps.App]:
    return [a for a in apps.discover().values() if a.api == STREAM_API and a.framework == framework]


def _stream(ctx: Context, app: apps.App) -> None:
    sctx = dataclasses.replace(ctx, app=app, mode=next(iter(app.modes)))
    if app.name not in TRANSFORM:
        sctx.outcome("unavailable", f"no scripted edit is known for {app.name}")
        return
    ctx.progress.update(f"{app.name}: starting the Kafka broker")
    began = time.monotonic()
    try:
        with kafka.Broker(say=ctx.progress.update) as broker:
            sctx.record("broker_start_s", time.monotonic() - began, "s", at=point("broker", loop="broker"))
            env = {**ctx.lab.db.app_env(), "KAFKA_BOOTSTRAP": broker.bootstrap}
            _loops(sctx, TRANSFORM[app.name], env, broken=False, broker=broker)
    except LabError as exc:
        sctx.outcome("failed", exc.message)


def run(ctx: Context) -> None:
    cfg: DevloopSettings = ctx.settings
    if ctx.mode != next(iter(ctx.app.modes)):
        ctx.outcome("ok", "devloop runs on the app's main mode only", quiet=True)
        return
    hello = HELLO.get(ctx.app.name)
    if hello is None:
        ctx.outcome("unavailable", f"no scripted edit is known for {ctx.app.name}")
    else:
        _loops(ctx, hello, ctx.lab.db.app_env(), cfg.broken)
    if cfg.streams and ctx.app.api != STREAM_API:
        for app in stream_apps(ctx.app.framework):
            _stream(ctx, app)


def setup(settings: DevloopSettings, say) -> None:
    """The stream apps' builds and the broker's jars, once, before anything is launched."""
    if not settings.streams:
        return
    try:
        kafka.ensure_jars(say=say)
    except LabError as exc:
        say(f"devloop: no Kafka broker: {exc.message}")
    for app in apps.discover().values():
        if app.api == STREAM_API:
            try:
                apps.build(app, log=say)
            except LabError as exc:
                say(f"devloop: {app.name} not built: {exc.message}")


def estimate_s(e: Estimate) -> float:
    per_change = (3 if e.settings.broken else 1) + 1  # + the /fruits ordering
    # a dev loop starts once (Maven + the app); a restart loop rebuilds and restarts on every change
    return (60 + e.start_s) + e.settings.repeats * per_change * (30 + e.start_s)


def describe(p: dict, plan: dict) -> str:
    return (f"{p.get('repeats', '?')} round trips per loop on a working copy: /hello's text changed"
            + (", an edit that does not compile and its fix" if p.get("broken") else "")
            + ", /fruits' order changed in its service, one Quarkus file with an imperative and a reactive endpoint"
            + "; Quarkus dev mode, Spring Boot DevTools (the lab compiles, as an IDE on save)"
            + (" and stop-rebuild-restart for every app" if p.get("restart_too") else "")
            + ("; the stream apps' transformation on a private Kafka broker" if p.get("streams") else "") + ".")


SCENARIO = Scenario(
    name="devloop", title="The developer loop: save to change visible (LAB-2020 4.1)", phase=Phase.OWN_AFTER,
    settings=DevloopSettings, run=run, estimate_s=estimate_s, remarks=claims.remarks,
    text_tables=claims.step_table, describe=describe, setup=setup)
