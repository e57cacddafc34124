"""The commands that measure or read runs: quick, run, settings, results, report, compare, history,
site and versions. perflab.cli parses the command line and loads this module only for these commands:
it loads the scenarios, plotly and scipy (about 2 s), which --help, doctor, db, apps and test need not
wait for."""

from __future__ import annotations

import json
import time

from perflab import ab, apps, byo, dryrun, plan, results, results_export, results_import, resume, runner, version_builds
from perflab.apps.versions import parse_cli
from perflab.errors import LabError
from perflab.migrate import open_store
from perflab.present.templating import templates
from perflab.profiles import storage as profile_storage
from perflab.report import ab_verdicts, cli_compare, cli_report, history, site, summary, write_ab_summary, write_report
from perflab.report.versions import text_lines
from perflab.targets import aa_headline

# the commands of perflab.report and perflab.version_builds, as the command line names them
cmd_report, cmd_compare = cli_report, cli_compare
cmd_history, cmd_site, cmd_versions = history.cli_history, site.cli_site, version_builds.cli_versions


def _say(msg: str) -> None:
    print(msg, flush=True)


def _run_and_summarise(plan_obj, apps_root=None, args=None, resumed=None) -> int:
    return _run_view(plan_obj, apps_root, args, resumed)[0]


def _run_view(plan_obj, apps_root=None, args=None, resumed=None) -> tuple[int, results.RunView | None]:
    """Run the plan and print its summary and report's paths: (exit code, the stored run or None)."""
    if getattr(args, "profile", False):
        plan_obj = plan.with_profiling(plan_obj)
    if getattr(args, "budget", None) is not None:
        plan_obj = plan.with_budget(plan_obj, args.budget)
    if not dryrun.before_run(plan_obj, apps_root, dry_run=getattr(args, "dry_run", False), say=_say,
                             limit_h=getattr(args, "max_hours", None), yes=getattr(args, "yes", False),
                             done=set(resumed.done) if resumed else frozenset()):
        return 0, None
    run_id = None
    view = None
    templates()  # read now: the report at the end uses this code's templates, whatever the checkout does meanwhile
    try:
        run_id = runner.run_plan(plan_obj, say=_say, apps_root=apps_root, resumed=resumed)
    finally:
        if run_id is None:
            last = open_store().run("last")
            run_id = last["id"] if last is not None and last["status"] != "complete" else None
        if run_id:
            view = results.load(open_store(), run_id)
            if view is not None:
                _say("")
                _say(summary.render(view))
                for line in profile_storage.describe(open_store(), run_id):
                    _say(line)
                _say(f"\nstored in {open_store().path} as run {run_id}")
                paths = write_report(open_store(), run_id)
                _say(f"report: {paths.html}\n        {paths.markdown}")
                if paths.versions:  # a plan with framework versions: the verdict of each change
                    _say(f"by version: {paths.versions}")
                    for line in text_lines(view):
                        _say(f"  {line}")
    failed = [o for o in view.outcomes if o["status"] not in ("ok", "unavailable", "not-run")] if view else []
    return (1 if failed or (view is not None and view.status == "failed") else 0), view


def cmd_ab(args) -> int:
    """`perflab ab`: exit 0, 1 when the gate fails, 2 when the run cannot give a verdict."""
    folder = ab.app_folder(args.app_dir, args.app)
    base = ab.revision(folder, args.base)
    head = ab.revision(folder, args.head)
    _say(f"base: {args.base} ({base.sha[:12]}) in {base.dir}")
    _say(f"head: {args.head or 'the working tree'} ({head.sha[:12]}{', with changes no commit holds' if head.dirty else ''})"
         f" in {head.dir}")
    plan_obj = ab.make_plan(args.plan or "quick", base, head, None if args.target is None else args.target / 100)
    code, view = _run_view(plan_obj, args=args)
    if view is None:
        return code  # a dry run, or nothing was stored
    found = ab_verdicts.verdicts(view)
    _say(f"\nperflab ab: head / base ({ab_verdicts.revisions_line(view)})")
    for verdict in found:
        _say(f"  {verdict.text()}")
    page = write_ab_summary(view, found, args.fail_above)
    _say(f"summary for a pipeline: {page}")
    missing = [o for o in view.outcomes if o["status"] not in ("ok", "not-run")]
    if code or not found or missing:
        why = "; ".join(f"{o['app']}/{o['mode']} {o['scenario']}: {o['status']}"
                        + (f" ({o['reason']})" if o.get("reason") else "") for o in missing) or "no figure of both sides"
        _say(f"ab: no verdict on the whole: {why}")
        return 2
    if args.fail_above is None:
        return 0
    lines, failed = ab_verdicts.gate_lines(found, args.fail_above)
    for line in lines:
        _say(line)
    return 1 if failed else 0


def cmd_run(args) -> int:
    if args.app_jar or args.app_cmd:
        if not args.url:
            raise LabError("--app-jar/--app-cmd need --url http://127.0.0.1:PORT/PATH (the endpoint to load)")
        root, name, path = byo.make_app(jar=args.app_jar, cmd=args.app_cmd, url=args.url, ready_url=args.ready_url,
                                        name=args.name, jdk=args.jdk)
        return _run_and_summarise(byo.make_plan(args.plan or "quick", name, path, args.app_dir or []), apps_root=root,
                                  args=args)
    if args.resume:
        resumed = resume.load(open_store(), args.resume)
        if args.plan and args.plan not in (resumed.plan.name, resumed.plan.source) or args.apps or args.app_dir or args.versions \
                or args.profile or args.budget is not None:
            raise LabError(f"--resume goes on with run {resumed.run_id}'s own plan ({resumed.plan.name}) as it was",
                           fix=f"./perflab run --resume {resumed.run_id} (without a plan, --apps, --app-dir, --versions, "
                               "--profile or --budget)")
        return _run_and_summarise(resumed.plan, args=args, resumed=resumed)
    if not args.plan and not args.app_dir:
        raise LabError("run needs a plan (quick, full, sizing, upgrade, frameworks, rt2019, lab2020, kt2020, their *-full forms or a .toml "
                       "file), --app-dir DIR, --app-jar/--app-cmd, or --resume RUN")
    # --app-dir without a plan: your own apps on the quick plan's settings, the lab's apps only if named
    only = (args.apps or None) if args.plan else (args.apps or [])
    return _run_and_summarise(_plan_with(args.plan or "quick", only, args.app_dir, args.versions, args.aa), args=args)


def cmd_quick(args) -> int:
    return _run_and_summarise(_plan_with("quick", args.apps or None, args.app_dir, aa=args.aa), args=args)


def _plan_with(name: str, only_apps: list[str] | None, app_dirs: list[str] | None, versions: list[str] | None = None,
               aa: list[str] | None = None):
    """The plan, narrowed to some of the lab's apps (--apps), joined by the user's own (--app-dir),
    with the framework versions of --versions; with --aa, those apps against copies of themselves."""
    known = list(apps.discover())
    plan_obj = plan.load(name, known_apps=known)
    data = dict(plan_obj.data)
    if only_apps is not None:
        data["apps"] = only_apps
    for folder in app_dirs or []:
        app = apps.load_dir(folder)  # a missing or wrong descriptor is an error now, before anything runs
        data["app_dirs"] = [*data["app_dirs"], str(app.dir)]
    if versions:
        data["versions"] = {**data["versions"], **parse_cli(versions)}
    if aa:
        data["aa"] = list(aa)
        data["apps"] = only_apps if only_apps is not None else list(aa)
        data["rounds"] = {**data.get("rounds", {}), "headline": aa_headline(plan.validate(data, plan_obj.source,
                                                                                         known_apps=known))}
    return plan.validate(data, plan_obj.source, known_apps=known) if data != plan_obj.data else plan_obj


def cmd_settings(args) -> int:
    _say(plan.describe_settings())
    return 0


def cmd_results(args) -> int:
    store = open_store()
    if args.action == "list":
        rows = store.runs()
        if not rows:
            _say("no runs stored yet; ./perflab quick makes one")
            return 0
        for r in rows:
            n = store.figure_count(r["id"])
            started = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["started_at"]))
            _say(f"{r['id']}  {started}  {r['plan_name']:<8} {r['status']:<11} {n:>5} figures  method {r['method_hash']}")
        return 0
    if args.action == "export":
        return results_export.cli_export(store, args.run, args.out)
    if args.action == "import":
        if len(args.run) != 1:
            raise LabError("results import reads one file: the export's path, or '-' for standard input")
        return results_import.cli_import(store, args.run[0])
    if len(args.run) != 1:
        raise LabError(f"results {args.action} needs one run id (or 'last')", fix="./perflab results list")
    view = results.load(store, args.run[0])
    if view is None:
        raise LabError(f"no run {args.run[0]!r} in {store.where}", fix="./perflab results list")
    if args.action == "prune":
        return profile_storage.cli_prune(store, view.id, args.profiles)
    _say(json.dumps(view.to_dict(), indent=2, default=str) if args.json else summary.render(view))
    if not args.json:
        for line in profile_storage.describe(store, view.id):
            _say(line)
    return 0
