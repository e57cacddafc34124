"""`perflab quick`: the lab's main job on the embedded defaults.

Builds every app (cached), starts the private database, then starts each app in turn, checks it
against the contract and shows one request per endpoint. Whatever it started is stopped at the
end, on error and on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import time

from perflab import apps, contract, doctor, postgres, procs, signals
from perflab.errors import LabError
from perflab.paths import work_dir

SHOWN = ["/hello", "/fruits", "/fruits/1", "/todos", "/data/SlimShady", "/health/live", "/health/ready"]


def _say(msg: str) -> None:
    print(msg, flush=True)


@contextlib.contextmanager
def lab_database():
    """The lab's running database, or a private one started (and stopped) for this command."""
    cluster = postgres.Cluster()
    if cluster.status().get("running"):
        conn = cluster.connection()
        _say(f"using the running database {conn.display_url}")
        yield conn
        return
    conn = cluster.start()
    _say(f"started PostgreSQL at {conn.display_url}")
    try:
        yield conn
    finally:
        with signals.shielded():
            cluster.stop(quiet=True)
            _say("stopped PostgreSQL")


def run(args) -> int:
    doctor.ensure(log=_say)
    selected = apps.discover()
    if args.apps:
        unknown = set(args.apps) - set(selected)
        if unknown:
            raise LabError(f"unknown app(s): {', '.join(sorted(unknown))}", fix=f"known: {', '.join(selected)}")
        selected = {k: v for k, v in selected.items() if k in args.apps}
    total = len(selected)
    for i, app in enumerate(selected.values(), 1):
        _say(f"[build {i}/{total}] {app.name}")
        apps.build(app, log=_say)
    failures = {}
    with lab_database() as conn:
        for i, app in enumerate(selected.values(), 1):
            mode = next(iter(app.modes))
            _say(f"\n[app {i}/{total}] {app.name} ({mode})")
            postgres.load_contract(conn)
            log_path = work_dir() / "logs" / f"quick-{app.name}-{mode}.log"
            try:
                running = apps.launch(app, mode, port=procs.free_port(), db_env=conn.app_env(), log_path=log_path)
            except LabError as exc:
                failures[app.name] = exc.message
                _say(exc.render())
                continue
            try:
                seconds = apps.wait_ready(running)
                framework_ms = apps.startup_from_log(app, log_path)
                _say(f"  ready after {seconds:.2f} s" + (f" (framework says {framework_ms:.0f} ms)" if framework_ms else ""))
                for path in SHOWN:
                    resp = contract.request(running.base_url, "GET", path)
                    body = resp.body.decode("utf-8", "replace").replace("\n", " ")
                    _say(f"  GET {path:<16} {resp.status} {resp.media_type:<17} {body[:90]}{'…' if len(body) > 90 else ''}")
                problems = contract.verify(running.base_url)
                if problems:
                    failures[app.name] = f"{len(problems)} contract problem(s)"
                    for p in problems:
                        _say(f"  contract: {p}")
                else:
                    _say("  contract (read-only checks): ok")
            except LabError as exc:
                failures[app.name] = exc.message
                _say(exc.render())
            finally:
                with signals.shielded():
                    running.stop()
    _say("")
    for name in selected:
        _say(f"{name:<16} {'FAILED: ' + failures[name] if name in failures else 'ok'}")
    return 1 if failures else 0
