"""The perflab command line: it parses every command and runs doctor, db, apps and test itself; the
commands that measure or read runs are perflab.commands'."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from perflab import __version__, apps, doctor, postgres, procs, signals, suite
from perflab.errors import LabError
from perflab.paths import REPO_ROOT, work_dir

# The commands that measure or read runs are perflab.commands', loaded only when one of them runs
# (_lab): they load the scenarios, plotly and scipy (about 2 s), which --help, doctor, db, apps and
# test need not wait for.


def _say(msg: str) -> None:
    print(msg, flush=True)


# --- doctor ---------------------------------------------------------------------------------------

def cmd_doctor(args) -> int:
    checks = doctor.doctor(install=not args.no_install, log=_say)
    _say(doctor.render(checks))
    missing = [c for c in checks if c.required and not c.ok]
    if missing:
        _say(f"\n{len(missing)} required piece(s) missing.")
        return 1
    _say("\nall required pieces are here.")
    return 0


# --- db -------------------------------------------------------------------------------------------

def cmd_db(args) -> int:
    cluster = postgres.Cluster()
    if args.action == "start":
        if args.url:
            conn = cluster.use_external(args.url)
            postgres.load_contract(conn)
            _say(f"using the existing server {conn.display_url}; contract schema and seed loaded")
            return 0
        conn = cluster.start(port=args.port)
        try:
            postgres.load_contract(conn)
        except BaseException:
            with signals.shielded():
                cluster.stop(quiet=True)
            raise
        _say(f"PostgreSQL running at {conn.display_url} (data: {cluster.data_dir})")
        _say("contract schema and seed loaded; stop it with: ./perflab db stop")
        return 0
    if args.action == "stop":
        _say("database stopped" if cluster.stop() else "the lab's database was not running")
        return 0
    if args.action == "reset":
        conn = _running_db(cluster)
        postgres.load_contract(conn)
        _say(f"contract schema and seed reloaded into {conn.display_url}")
        return 0
    status = cluster.status()
    if not status.get("running"):
        _say("database: not running" + (" (external server does not answer)" if status.get("external") else ""))
        return 1
    _say(f"database: running at {status['url']}" + (f", pid {status['pid']}" if status.get("pid") else " (external)"))
    return 0


def _running_db(cluster: postgres.Cluster) -> postgres.Connection:
    conn = cluster.connection()
    if conn is None or not cluster.status().get("running"):
        raise LabError("the lab's database is not running", fix="./perflab db start")
    return conn


# --- apps -----------------------------------------------------------------------------------------

def cmd_apps(args) -> int:
    if args.action == "list":
        found = apps.discover()
        for app in found.values():
            build = apps.last_build(app)
            built = f"built {build.artifact_bytes / 1e6:.1f} MB" if build and app.artifact_path.exists() else "not built"
            framework = f"{app.framework} {app.framework_version}"
            _say(f"{app.name:<16} {framework:<24} {built:<16} modes: {', '.join(app.modes)}")
        return 0
    if args.action == "build":
        names = args.names or list(apps.discover())
        for name in names:
            app = apps.get(name)
            modes = [args.mode] if args.mode else list(app.modes)
            built = set()
            for mode in modes:  # a mode may have a build of its own (native, virtual threads)
                variant = app.for_mode(mode)
                why = apps.unavailable(app, mode)
                if variant.build_key in built:
                    continue
                if why and variant.build_key != app.name:
                    _say(f"{variant.build_key}: not built: {why}")
                    continue
                apps.build(variant, force=args.force, log=_say)
                built.add(variant.build_key)
        return 0
    if args.action == "start":
        return _apps_start(args)
    stopped = 0
    for entry in procs.recall_all("app-"):
        if args.names and entry.name[4:] not in args.names:
            continue
        procs.stop_group(entry.pgid)
        procs.forget(entry.name)
        _say(f"stopped {entry.name[4:]} ({entry.url})")
        stopped += 1
    if not stopped:
        _say("no app started by the lab is running")
    return 0


def _apps_start(args) -> int:
    if len(args.names) != 1:
        raise LabError("apps start takes exactly one app name", fix="./perflab apps list shows them")
    app = apps.get(args.names[0])
    if app.db_server == "h2":  # its H2 lives only as long as a run (perflab.h2)
        raise LabError(f"{app.name} needs the lab's H2, which only a run starts",
                       fix=f"./perflab run kt2020 (or a plan that names {app.name})")
    existing = procs.recall(f"app-{app.name}")
    if existing and procs.group_alive(existing.pgid):
        raise LabError(f"{app.name} is already running at {existing.url}", fix=f"./perflab apps stop {app.name}")
    conn = _running_db(postgres.Cluster())
    mode = args.mode or next(iter(app.modes))
    port = args.port or procs.free_port()
    log_path = work_dir() / "logs" / f"{app.name}-{mode}.log"
    why = apps.unavailable(app, mode, args.jdk)
    if why:
        raise LabError(f"{app.name} mode {mode} is {why}")
    variant = app.for_mode(mode)
    if not variant.artifact_path.exists():
        raise LabError(f"{variant.build_key} is not built", fix=f"./perflab apps build {app.name} --mode {mode}")
    running = apps.launch(variant, mode, port=port, db_env=conn.app_env(), log_path=log_path, jdk=args.jdk)
    try:
        _say(f"starting {app.name} ({mode}) on port {port}; log: {log_path}")
        seconds = apps.wait_ready(running, timeout=args.timeout)
    except BaseException:
        with signals.shielded():
            running.stop()
        raise
    procs.remember(procs.Tracked(f"app-{app.name}", running.proc.pid, running.proc.pid, running.base_url,
                                 str(log_path), time.time(), {"mode": mode, "port": port}))
    _say(f"{app.name} ({mode}) ready after {seconds:.2f} s at {running.base_url}")
    _say(f"stop it with: ./perflab apps stop {app.name}")
    return 0


# --- the commands that measure or read runs (perflab.commands) ----------------------------------

def _lab(name: str):
    """perflab.commands' command `name`, loaded when it runs."""
    def command(args) -> int:
        from perflab import commands  # the scenarios, plotly and scipy (about 2 s): not for --help, doctor, db, apps

        return getattr(commands, name)(args)
    return command


def _add_budget_option(parser, default_note: str) -> None:
    parser.add_argument("--budget", type=float, metavar="MIN",
                        help="add rounds of the unsettled headline ratios while one more would end the run within MIN "
                             f"minutes of its first step, however many rounds that takes ({default_note}); on a "
                             "slow machine, the way to a settled answer from one run. A run with a budget of its own "
                             "is the same method as the plan's other runs: its rounds pool with theirs")


def _add_cost_options(parser) -> None:
    parser.add_argument("--dry-run", action="store_true",
                        help="only show what would run, what is unavailable here and why, and the estimated time per "
                             "app/mode and scenario with a total; builds and starts nothing")
    parser.add_argument("--max-hours", type=float, metavar="H",
                        help="a run estimated above H hours asks first on a terminal and is refused elsewhere unless "
                             "--yes (default: PERFLAB_MAX_HOURS, else 4)")
    parser.add_argument("--yes", action="store_true", help="run even when the estimate is above --max-hours")


# --- test -----------------------------------------------------------------------------------------

def cmd_test(args) -> int:
    if not suite.wants_fast(args.pytest_args):  # the unit tier starts no tool
        doctor.ensure(log=_say)
    # every run, also after one failed: CI reports both parts' failures at once
    codes = [subprocess.call([sys.executable, "-m", "pytest", *run], cwd=REPO_ROOT)
             for run in suite.runs(args.pytest_args, REPO_ROOT)]
    return suite.exit_code(codes)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="perflab",
        description="A reproducible performance lab for cloud-native Java frameworks.",
        epilog="Work directory: .perflab/ in the repository (PERFLAB_WORKDIR overrides).",
    )
    p.add_argument("--version", action="version", version=f"perflab {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    q = sub.add_parser("quick", help="the quick lab, 11 to 24 minutes on 2 cores after the builds (--dry-run gives this "
                                      "machine's estimate; added rounds stop at 15 minutes): footprint, start-up "
                                      "and steady-state throughput and latency of every app's main mode in interleaved "
                                      "launch rounds, ending with the headline ratios and their 95 %% intervals (the "
                                      "built-in plan 'quick'; the rest is in 'full')")
    q.add_argument("--apps", nargs="*", help="only these apps (default: all)")
    q.add_argument("--app-dir", action="append", metavar="DIR",
                   help="also measure your own app described by DIR/perflab.toml (repeatable)")
    q.add_argument("--aa", action="append", metavar="APP",
                   help="A/A check: APP against a copy of itself (the same build, named APP-aa) in the rounds, "
                        "in place of the plan's apps; the interval of APP / APP-aa should exclude 1.00 in about "
                        "5 %% of runs (repeatable; docs/method.md)")
    q.add_argument("--profile", action="store_true", help="profile CPU and allocations over steady's measured windows (plan profile.enabled; the figures are "
                        "marked profiled; docs/profiles.md)")
    _add_budget_option(q, "quick's own: 15, at most 6 rounds")
    _add_cost_options(q)
    q.set_defaults(func=_lab("cmd_quick"))

    r = sub.add_parser("run", help="run a plan (quick, full, sizing, upgrade, frameworks, rt2019, lab2020, kt2020, rt2019-full, lab2020-full, kt2020-full "
                            "or a TOML file), or measure your own app; --dry-run shows what it would cost, --resume RUN "
                            "goes on with an interrupted run",
                       epilog="Your own apps: perflab run [PLAN] --app-dir DIR [--app-dir DIR2 ...], each DIR holding a "
                              "perflab.toml (its own schema and seed, smoke requests, placeholders such as {db_jdbc_url}: "
                              "see README, Bring your own app). A jar or command without a descriptor: perflab run "
                              "[BASE_PLAN] --app-jar app.jar --url http://127.0.0.1:8080/hello (or --app-cmd "
                              "\"./server --port 8080\"): start-up, memory, sweep and latency on that URL with the base "
                              "plan's durations (default quick), no contract check.")
    r.add_argument("plan", nargs="?", help="built-in plan name or path to a plan .toml")
    r.add_argument("--apps", nargs="*", help="only these apps")
    r.add_argument("--app-dir", action="append", metavar="DIR",
                   help="also measure your own app described by DIR/perflab.toml (repeatable; without a plan: "
                        "only these apps, on the quick plan's settings)")
    r.add_argument("--versions", action="append", metavar="APP=V1,V2",
                   help="build APP against these framework versions, each measured as APP@VERSION (repeatable; "
                        "see docs/versions.md)")
    r.add_argument("--app-jar", help="measure this jar (java -jar) instead of the apps under apps/")
    r.add_argument("--app-cmd", help="measure the service this command starts")
    r.add_argument("--url", help="with --app-jar/--app-cmd: the endpoint to load, http://127.0.0.1:PORT/PATH")
    r.add_argument("--ready-url", help="with --app-jar/--app-cmd: readiness URL (default: --url)")
    r.add_argument("--name", help="with --app-jar/--app-cmd: a name for the results")
    r.add_argument("--jdk", type=int, default=17, help="with --app-jar: the JDK to run it on (default 17)")
    r.add_argument("--aa", action="append", metavar="APP",
                   help="A/A check: APP against a copy of itself (the same build, named APP-aa) in the rounds, "
                        "in place of the plan's apps; the interval of APP / APP-aa should exclude 1.00 in about "
                        "5 %% of runs (repeatable; docs/method.md)")
    r.add_argument("--profile", action="store_true", help="profile CPU and allocations over steady's measured windows (plan profile.enabled; the figures are "
                        "marked profiled; docs/profiles.md)")
    r.add_argument("--resume", metavar="RUN", help="go on with an interrupted or failed run (its id, a prefix or 'last') "
                                                   "at its first unfinished step, with its plan and method; refused when "
                                                   "the method or an app's sources changed")
    _add_budget_option(r, "default: the plan's rounds.budget_min and max_rounds")
    _add_cost_options(r)
    r.set_defaults(func=_lab("cmd_run"))

    ab_help = ("two revisions of one app in one run: each built from a git worktree, measured as APP@base and "
               "APP@head in balanced interleaved launch rounds (quick's settings by default) until their ratios "
               "settle or the budget ends; prints head / base per headline figure with its 95 %% interval and a "
               "verdict, and with --fail-above exits 1 when a whole interval lies beyond it on the worse side "
               "(docs/ci.md)")
    ab = sub.add_parser("ab", help=ab_help, description=ab_help.replace("%%", "%"),
                        epilog="Exit: 0 passed (or no gate), 1 a figure worse by more than --fail-above over its whole "
                               "interval, 2 an error (a revision that does not build, a launch that failed, bad "
                               "input). The verdicts are also written as ab.md beside the run's report, for a "
                               "pipeline's job summary.")
    ab.add_argument("--app-dir", metavar="DIR", help="your app's folder (its perflab.toml) in a git repository")
    ab.add_argument("--app", metavar="NAME", help="one of the lab's own apps instead (e.g. quarkus)")
    ab.add_argument("--base", required=True, metavar="REV", help="the revision compared against (a branch, tag or commit)")
    ab.add_argument("--head", metavar="REV", help="the revision judged (default: the app's folder as it stands, "
                                                  "changes not yet committed included)")
    ab.add_argument("--plan", help="the plan whose settings the two revisions run on (default quick)")
    ab.add_argument("--target", type=float, metavar="PCT",
                    help="settle each ratio to +-PCT %% (95 %% interval; default: the plan's rounds.target, quick's 10)")
    ab.add_argument("--fail-above", type=float, metavar="PCT",
                    help="exit 1 when a figure of the head is worse than the base's by more than PCT %% over the "
                         "whole interval (throughput, time to first response, RSS after it, CPU per request)")
    _add_budget_option(ab, "default: the plan's")
    _add_cost_options(ab)
    ab.set_defaults(func=_lab("cmd_ab"))

    st = sub.add_parser("settings", help="every plan table and key: type, default, unit and meaning (from the scenarios)")
    st.set_defaults(func=_lab("cmd_settings"))

    res = sub.add_parser("results", help="stored runs: list, show one (summary or --json), prune its profiles, "
                                          "export runs to a file or import them (docs/results-format.md)")
    res.add_argument("action", choices=["list", "show", "prune", "export", "import"])
    res.add_argument("run", nargs="*", help="run id, a unique prefix of it, or 'last' (export: one or more; "
                                            "import: the export's file, '-' for standard input)")
    res.add_argument("--out", help="export: write to this file (default: standard output)")
    res.add_argument("--json", action="store_true", help="show: the whole run as JSON (figures with their summaries)")
    res.add_argument("--profiles", action="store_true", help="prune: remove the run's profiles (its figures stay)")
    res.set_defaults(func=_lab("cmd_results"))

    d = sub.add_parser("doctor", help="check JDKs, Maven, PostgreSQL, wrk, cgroups; install missing Debian packages as root")
    d.add_argument("--no-install", action="store_true", help="only report, install nothing")
    d.set_defaults(func=cmd_doctor)

    db = sub.add_parser("db", help="the lab's private PostgreSQL (or an existing server given by URL)")
    db.add_argument("action", choices=["start", "stop", "status", "reset"],
                    help="start (and load the contract schema), stop, status, reset (reload schema and seed)")
    db.add_argument("--port", type=int, help="port for the private server (default: a free one)")
    db.add_argument("--url", help="use an existing server: postgresql://USER:PASSWORD@HOST:PORT/DB")
    db.set_defaults(func=cmd_db)

    a = sub.add_parser("apps", help="list, build, start and stop the apps under apps/")
    a.add_argument("action", choices=["list", "build", "start", "stop"])
    a.add_argument("names", nargs="*", help="app names, or APP@VERSION for the app on another framework version (build/stop: default all; "
                                                             "start: exactly one)")
    a.add_argument("--force", action="store_true", help="build even if the sources are unchanged")
    a.add_argument("--mode", help="build/start: the mode (default: build all modes' artifacts; start the first mode)")
    a.add_argument("--port", type=int, help="start: HTTP port (default: a free one)")
    a.add_argument("--jdk", type=int, help="start: run on this JDK major version instead of the mode's")
    a.add_argument("--timeout", type=float, default=180.0, help="start: seconds to wait for readiness (default 180)")
    a.set_defaults(func=cmd_apps)

    rep = sub.add_parser("report", help="write the HTML and Markdown report of a run (published figures and ratios beside it, "
                                           "verdicts by direction and size, the studies' own contradictions)")
    rep.add_argument("run", nargs="?", default="last", help="run id, a unique prefix, or 'last' (default)")
    rep.add_argument("--out", help="directory for report.html and report.md (default .perflab/reports/RUN/)")
    rep.set_defaults(func=_lab("cmd_report"))

    cmp_ = sub.add_parser("compare", help="compare two runs figure by figure, or one run's consecutive framework versions: "
                                         "change and whether it is beyond the noise")
    cmp_.add_argument("run_a", help="the baseline run")
    cmp_.add_argument("run_b", nargs="?", help="the run compared with it (none: the first run's consecutive framework "
                                                "versions are compared, see docs/versions.md)")
    cmp_.add_argument("--fail-above", type=float, metavar="PCT",
                      help="exit 1 when a change is worse beyond the noise by more than PCT percent (a CI gate)")
    cmp_.add_argument("--profile", action="store_true",
                      help="also set the runs' profiles side by side: a differential flame graph and ms/request "
                           "gained or lost per layer, per app/mode both runs profiled")
    cmp_.add_argument("--force", action="store_true", help="compare even if the runs' methods differ (every line is flagged)")
    cmp_.add_argument("--out", help="HTML file to write (default .perflab/reports/compare-A-vs-B.html)")
    cmp_.set_defaults(func=_lab("cmd_compare"))

    hist = sub.add_parser("history", help="a plan's headline figures across every stored run of it, over time (HTML), with "
                                               "each headline ratio answered across the complete runs since its last "
                                               "change point")
    hist.add_argument("plan", help="the plan's name (e.g. upgrade, quick)")
    hist.add_argument("--out", help="HTML file to write (default .perflab/reports/history-PLAN.html)")
    hist.add_argument("--fail-on-change", action="store_true",
                      help="exit 1 when the newest run starts a change point (among the runs of its method on its "
                           "machine) that makes a headline figure worse by more than --threshold: lower "
                           "throughput, higher time to first response, RSS or CPU per request (a CI gate); each "
                           "figure is taken over the same figure of its run's reference app/mode (the denominator "
                           "of the run's first headline ratio, else go-reference/native), so a drift of the "
                           "machine between runs cancels; a run with neither is judged on absolute figures, and "
                           "says so; a change for the better, and any change of a headline ratio, is reported, "
                           "not failed")
    hist.add_argument("--threshold", type=float, metavar="PCT",
                      help="with --fail-on-change: the percent a figure may get worse (default 5)")
    hist.add_argument("--absolute", action="store_true",
                      help="seek change points in (and gate on) each app/mode's figures as measured, not over its "
                           "run's reference: a drift of the machine between runs then reads as a change of the "
                           "code, and the reference's own figures are judged too")
    hist.set_defaults(func=_lab("cmd_history"))

    site_help = ("one static site of every stored run, opened from the file system with no server: an index "
                 "with a row per headline ratio of each run (its estimate, 95 %% interval and whether it settled, "
                 "beside the run's plan, start, machine, status, git and method), sorted by a click on a column's "
                 "header; each run's report, each plan's history with its headline ratios charted across its runs "
                 "and its change points, each run's version comparison and a comparison of each run with the one "
                 "before it (same plan, method and machine)")
    site = sub.add_parser("site", help=site_help, description=site_help.replace("%%", "%"),
                          epilog="Every link is relative: the folder can be copied, zipped or served as it is; "
                                 "open DIR/index.html in a browser. Building it rewrites the pages it holds.")
    site.add_argument("--out", metavar="DIR", help="folder to write the site to (default .perflab/site/)")
    site.set_defaults(func=_lab("cmd_site"))

    ver = sub.add_parser("versions", help="an app's framework versions tried here: which build, and why the others do not")
    ver.add_argument("app", help="the app's name")
    ver.set_defaults(func=_lab("cmd_versions"))

    test_help = ("run the test suite, every tier: unit, lab, kube (installs what it needs first), in two worker "
                 "processes on two CPUs or more (PERFLAB_TEST_WORKERS=1: one), then the tests marked alone (they "
                 "bound a time; the kube tier) in one; --fast: the unit tier only (no process started, under a minute)")
    t = sub.add_parser("test", help=test_help, description=test_help)
    t.add_argument("pytest_args", nargs=argparse.REMAINDER, help="--fast, and extra pytest arguments")
    t.set_defaults(func=cmd_test)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["test"] and not {"-h", "--help"} & set(argv[1:2]):
        # everything after `test` belongs to pytest, options included
        args = argparse.Namespace(func=cmd_test, pytest_args=argv[1:])
    else:
        args = build_parser().parse_args(argv)
    signals.install()
    try:
        return args.func(args) or 0
    except LabError as exc:
        print(exc.render(), file=sys.stderr, flush=True)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted: stopped what this command had started; results already written are kept",
              file=sys.stderr, flush=True)
        return 130
    except BrokenPipeError:  # the reader went away (`perflab results list | head`): no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python flushes stdout at exit
        return 141
