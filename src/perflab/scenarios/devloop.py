"""devloop: the developer's loop, measured (LAB-2020 4.1). Per app, on a working copy under the
lab's work directory: each loop the app has (Quarkus dev mode, Spring Boot DevTools with the
IDE's compile done by the lab, stop-rebuild-restart for every app) is started against the lab's
PostgreSQL, then per repeat: /hello's text is changed; an edit that does not compile is saved,
then fixed; /fruits' ordering is changed in its service; and a new endpoint is added in a new
file, in the app's own idiom (a Spring MVC controller, a WebFlux controller returning a Mono, a
JAX-RS resource, a Go handler and its route). Quarkus's new endpoint is LAB-2020 4.1.3's: one file
holding an imperative and a reactive endpoint; that edit stays Quarkus's alone, the one framework
here serving both styles side by side in one class.

Figures: save -> first response showing the change (a change that never showed is stored at the
timeout, flagged not-visible, with `visible` = 0), the steps the lab took, how long until a broken
build is visible and where its meaningful line is, the loop's start time and the RSS of its
process tree, whether the app kept its DB connections across the change (the same PostgreSQL
backends before and after) and its in-memory state (`state_kept`): kept only when the same
process answers the change and the app did not start again inside it (its start line not logged
again); an in-process restart (DevTools, a Quarkus live reload) or a new process loses it, since
either makes new application objects.

With an app of a framework, the stream app of the same framework (api = "stream", e.g.
stream-spring with spring-boot) runs the same loops on a private Kafka broker (LAB-2020 4.1.2):
its transformation is changed and the change counts as visible once a record sent after the save
comes out transformed the new way. A change not visible `broker_restart_after_s` after the lab's
own steps gets a broker restart: a step of its own, flagged broker-restarted, the wait and the
restart inside the time from the save.

The tracked sources are never edited (the working copy is removed on every way out); the loop
runs without the plan's cgroup limits, as on a developer's machine, on the app's main mode only.
"""

from __future__ import annotations

import dataclasses
import time

from pydantic import model_validator

from perflab import apps, kafka, postgres, procs
from perflab.devloop.edits import ENDPOINT, FRUITS, HELLO, TRANSFORM, HelloSource
from perflab.devloop.loops import DEV_MODE, Loop, loops_for
from perflab.devloop.roundtrip import BROKEN, LoopResult, Script
from perflab.devloop.stream import BROKER_PATIENCE_S, BROKER_RESTART, StreamScript
from perflab.devloop.workcopy import WorkingCopy
from perflab.errors import LabError
from perflab.placements import KUBERNETES
from perflab.present.published import devloop_claims as claims
from perflab.scenario import Context, Estimate, Phase, Scenario
from perflab.settings import Settings, setting
from perflab.store import point

STREAM_API = "stream"


class DevloopSettings(Settings):
    repeats: int = setting(3, "rounds of edits per loop (each: /hello's text, a broken edit and its fix, /fruits' "
                              "order, a new endpoint; a stream app's transformation)", "rounds", ge=1)
    broken: bool = setting(True, "also save an edit that does not compile, then its fix")
    restart_too: bool = setting(True, "also time stop-rebuild-restart for apps that have a dev mode or DevTools")
    streams: bool = setting(True, "also run the stream app of the same framework on a private Kafka broker")
    timeout_s: float = setting(300.0, "how long a loop may take to start, or a change to show", "s", gt=0)
    broker_restart_after_s: float = setting(
        BROKER_PATIENCE_S, "a stream app's change not visible this long after the lab's own steps: restart the broker", "s", gt=0)
    poll_ms: float = setting(50.0, "poll interval while waiting for a change to show", "ms", gt=0)

    @model_validator(mode="after")
    def _restart_before_timeout(self):
        if self.broker_restart_after_s >= self.timeout_s:
            raise ValueError("devloop.broker_restart_after_s must be less than devloop.timeout_s "
                             "(the broker is restarted while a change may still show)")
        return self


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
        flags = ([] if trip.seconds is not None else ["not-visible"]) + (
            ["broker-restarted"] if BROKER_RESTART in trip.steps else [])
        metric = "error_visible_s" if trip.edit == BROKEN else "round_trip_s"
        # a change that never showed is stored at the timeout, flagged, so it is not silently missing;
        # `visible` says per repeat whether it showed (the verdicts count only those that did)
        seconds = trip.seconds if trip.seconds is not None else ctx.settings.timeout_s
        ctx.record(metric, seconds, "s", at=where, repeat=trip.repeat, extra=extra, flags=flags)
        ctx.record("visible", float(trip.seconds is not None), "yes=1", at=where, repeat=trip.repeat)
        # the steps by name in the point, so the report can list them beside LAB-2020's
        named = point(where.label, **where.params, after_save=list(trip.steps))
        ctx.record("steps", len(claims.BY_HAND) + len(trip.steps), "steps", at=named, repeat=trip.repeat, extra=extra)
        ctx.record("error_line", trip.line, "line", at=where, repeat=trip.repeat, extra=extra)
        ctx.record("app_restarts", trip.restarts, "restarts", at=where, repeat=trip.repeat)
        if trip.db_kept is not None:
            ctx.record("db_connections_kept", float(trip.db_kept), "yes=1", at=where, repeat=trip.repeat)
        if trip.state_kept is not None:
            ctx.record("state_kept", float(trip.state_kept), "yes=1", at=where, repeat=trip.repeat)


def _loop(ctx: Context, kind: type[Loop], source: HelloSource, env: dict[str, str], broken: bool,
          broker) -> tuple[LoopResult, str]:
    """One loop scripted on a fresh working copy, and what it had to do to start that a developer
    would not (e.g. dev-mode pins); raises LabError (Unavailable with its status) when it cannot run."""
    cfg: DevloopSettings = ctx.settings
    ctx.progress.update(f"{ctx.app.name} {kind.kind}: working copy")
    with WorkingCopy(ctx.app) as wc:
        loop = kind(wc, ctx.mode, procs.free_port(), env, ctx.lab.log_dir, cfg.timeout_s,
                    list(ctx.plan["limits"]["jvm_opts"]))
        args = (loop, source, ctx.app.first_response_path, cfg.poll_ms / 1e3, _backends(ctx))
        say = lambda text: ctx.progress.update(f"{ctx.app.name} {text}")  # noqa: E731
        script = (StreamScript(*args, broker=broker, restart_after_s=cfg.broker_restart_after_s, say=say)
                  if broker else Script(*args, say=say))
        try:
            result = script.run(cfg.repeats, broken)
        finally:
            loop.stop()
        lacked = getattr(loop, "lacked", [])
        return result, (f"started with the app's dev-mode pins: the registry lacks {', '.join(lacked)}"
                        if lacked else "")


def _loops(ctx: Context, source: HelloSource, env: dict[str, str], broken: bool, broker=None) -> None:
    cfg: DevloopSettings = ctx.settings
    kinds = loops_for(ctx.app.name, ctx.app.framework)
    if not cfg.restart_too and len(kinds) > 1:
        kinds = kinds[:1]
    for kind in kinds:
        try:
            result, how = _loop(ctx, kind, source, env, broken, broker)
        except LabError as exc:
            # this loop only (e.g. its build failed in the working copy): the app's other loops still run
            ctx.outcome(getattr(exc, "status", "failed"), exc.message, part=kind.kind)
            continue
        _record(ctx, result, stream=broker is not None)
        lost = [t for t in result.trips if t.seconds is None]
        said = [how] if how else []
        if lost:
            said.append(f"{len(lost)} change(s) never showed: {lost[0].note[:300]}")
        ctx.outcome("ok" if not lost else "failed", "; ".join(said), part=kind.kind)


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
    if cfg.streams and ctx.app.api == apps.CONTRACT_API:  # not again with a framework's other apps (kt2020's)
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


# rough times on the lab's 2 cores, for the progress estimate only
DEV_LOOP_START_S = 60.0   # Maven resolves the plugin's dependencies and compiles before the app starts
MAVEN_BUILD_S = 40.0      # the app's own build command in its working copy: with the Maven wrapper
OTHER_BUILD_S = 10.0      # or another tool (go build)
COMPILE_S = 15.0          # DevTools' step: an offline Maven compile
RELOAD_S = 5.0            # a dev mode's reload on the request after a save
BROKER_S = 25.0           # the Kafka broker's start
STREAM_CHECK_S = 10.0     # a stream app's check before it is measured


def _trips_per_round(app: apps.App, broken: bool) -> int:
    """The saves one round of edits makes (see Script.run)."""
    return 1 + 2 * broken + (app.name in FRUITS) + (app.name in ENDPOINT)


def _loops_s(app: apps.App, cfg: DevloopSettings, start_s: float, trips: int, check_s: float = 0.0) -> float:
    """Each loop of the app: its start (and check), then `trips` saves (a dev loop reloads or
    compiles; a rebuild-restart loop builds and starts the app again on every save)."""
    kinds = loops_for(app.name, app.framework)
    total = 0.0
    for kind in kinds[:1] if not cfg.restart_too else kinds:
        total += check_s
        if kind.kind == DEV_MODE:
            total += DEV_LOOP_START_S + start_s + trips * RELOAD_S
        elif kind.steps_after_save == ("compile",):
            total += DEV_LOOP_START_S + start_s + trips * (COMPILE_S + start_s)
        else:
            build_s = MAVEN_BUILD_S if "{mvnw}" in app.build_command else OTHER_BUILD_S
            total += (1 + trips) * (build_s + start_s)
    return total


def estimate_for(app: apps.App, cfg: DevloopSettings, start_s: float) -> float:
    """What devloop runs for an app: its loops with every edit, then (for a contract app) each
    stream app of its framework on a broker of its own, one transformation change per round."""
    total = _loops_s(app, cfg, start_s, cfg.repeats * _trips_per_round(app, cfg.broken)) if app.name in HELLO else 0.0
    if cfg.streams and app.api == apps.CONTRACT_API:
        for stream in stream_apps(app.framework):
            total += BROKER_S + _loops_s(stream, cfg, start_s, cfg.repeats, STREAM_CHECK_S)
    return total


def estimate_s(e: Estimate) -> float:
    # the runner passes the app; without one (a plan's total before targets exist), Quarkus's, the one with the most to run
    app = e.app or apps.get("quarkus")
    return estimate_for(app, e.settings, e.start_s)


def describe(p: dict, plan: dict) -> str:
    after = p.get("broker_restart_after_s")  # runs stored before the setting restarted it after the timeout
    when = f"{after:g} s after the lab's steps" if after is not None else "within the timeout"
    return (f"{p.get('repeats', '?')} rounds of edits per loop on a working copy: /hello's text changed"
            + (", an edit that does not compile and its fix" if p.get("broken") else "")
            + ", /fruits' order changed in its service, a new endpoint in a new file (for Quarkus one file with an "
              "imperative and a reactive endpoint, LAB-2020 4.1.3, Quarkus's alone)"
            + "; Quarkus dev mode, Spring Boot DevTools (the lab compiles, as an IDE on save)"
            + (" and stop-rebuild-restart for every app" if p.get("restart_too") else "")
            + ("; the stream apps' transformation on a private Kafka broker, restarted when a change has not shown "
               + when if p.get("streams") else "") + ".")


SCENARIO = Scenario(
    name="devloop", title="The developer loop: save to change visible (LAB-2020 4.1)", phase=Phase.OWN_AFTER,
    settings=DevloopSettings, run=run, estimate_s=estimate_s, remarks=claims.remarks,
    text_tables=claims.step_table, describe=describe, setup=setup,
    not_on=((KUBERNETES, "the developer loop edits sources and times a dev mode on the developer's own machine"),))
