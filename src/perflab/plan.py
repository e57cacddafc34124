"""A lab plan (TOML): which apps x modes x scenarios, under which limits and topology, how many
repeats, with each scenario's settings. The schema is built from the scenario registry: every
scenario's settings table (its keys, types, defaults and units) is a table of the plan, so a typo
or a wrong type is an error that names the key and what is allowed, never a silent default.

Built-in plans live in perflab/plans/; `perflab run FILE` takes a user's own. Every default is
written into the stored plan, so a run records exactly what it did.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import create_model, model_validator

from perflab import cost_assumptions, registry
from perflab.apps.versions import check_version
from perflab.errors import LabError
from perflab.isolate import cpu_quota
from perflab.isolate.topology import online_cpus
from perflab.placements.settings import PlacementSettings
from perflab.profiles.settings import ProfileSettings, check as check_profile
from perflab.rounds import BUDGET_MAX_ROUNDS, RoundSettings
from perflab.settings import Plan, Settings, setting, unit_of, validate as validate_settings

PLANS_DIR = Path(__file__).parent / "plans"
DEFAULT_SCENARIOS = ["footprint", "startup", "memory", "sweep", "latency", "write"]


class LimitSettings(Settings):
    cpus: int | float = setting(1, "CPUs the app may use, fractions allowed (0.5, 1.5): locally a CFS quota of that "
                                   "many cores on the whole CPUs it needs, on Kubernetes the container's CPU limit "
                                   "in millicores", "CPUs", gt=0)
    memory_mb: int = setting(1024, "the app's memory limit", "MB", ge=64)
    jvm_opts: list[str] = setting([], "JVM options for every JVM mode (e.g. a heap size); its heap sizes "
                                      "(-Xmx, -Xms, -Xmn, -Xss) also reach native modes whose command takes {heap_opts}")
    native_heap_opts: list[str] = setting([], "heap options for native modes instead of jvm_opts' heap sizes (e.g. "
                                               "LAB-2020's -Xms32m -Xmx64m -Xmn32m; empty: those of jvm_opts)")
    jdk: int = setting(0, "a JDK for every JVM mode (0: the mode's own)")
    pool_min: int = setting(5, "the app's database pool: connections kept open (DB_POOL_MIN)", "connections", ge=0)
    pool_max: int = setting(20, "the app's database pool: most connections (DB_POOL_MAX)", "connections", ge=1)

    @model_validator(mode="after")
    def _known_jdk(self):
        cpu_quota.check_cores(self.cpus, None)
        if self.jdk not in (0, 11, 17, 21, 25):
            raise ValueError("limits.jdk must be 0 (the mode's own), 11, 17, 21 or 25")
        if self.pool_min > self.pool_max:
            raise ValueError(f"limits.pool_min ({self.pool_min}) must not exceed limits.pool_max ({self.pool_max})")
        return self


class TopologySettings(Settings):
    app_cpus: list[int] = setting([], "the app's CPUs (empty: chosen by the lab)")
    driver_cpus: list[int] = setting([], "the load driver's CPUs")
    db_cpus: list[int] = setting([], "the database's CPUs")


class RevisionSettings(Settings):
    dir: str = setting("", "the app's folder at this revision: a git worktree the lab made, or the working tree")
    rev: str = setting("", "the revision as given (empty: the working tree)")
    sha: str = setting("", "its commit (for the working tree, the commit it stands on)")
    dirty: bool = setting(False, "the working tree had changes that no commit holds")


class ABSettings(Settings):
    """Written by `perflab ab`, not by hand: the two revisions of one app measured as APP@base and
    APP@head in place of the plan's apps."""
    base: RevisionSettings = setting(RevisionSettings())
    head: RevisionSettings = setting(RevisionSettings())


def _top_level_fields() -> dict[str, Any]:
    return {
        "name": (str, setting(..., "the plan's name")),
        "description": (str, setting("", "what the plan is for")),
        "measured": (str, setting("", "how long a whole run of the plan took where it was measured, and on what "
                                      "(--dry-run shows it beside its estimate)")),
        "apps": (list[str], setting(["all"], "apps to run, or all")),
        "skip_apps": (list[str], setting([], "apps left out of all (e.g. a variant the plan has no time for)")),
        "app_dirs": (list[str], setting([], "your own apps: folders with a perflab.toml (relative to the plan file), "
                                            "run beside the apps above")),
        "versions": (dict[str, list[str]], setting({}, "per app, the framework versions to build it against, each a "
                                                       "variant app@version (empty: each app's own version)")),
        "aa": (list[str], setting([], "A/A check: each of these apps is also measured as a copy of itself, the same "
                                      "build under the name APP-aa, launched in the rounds like any other app; the "
                                      "headline is APP / APP-aa, whose true value is 1 (docs/method.md)")),
        "ab": (ABSettings, setting(ABSettings(), "perflab ab's two revisions of one app (set by perflab ab): they "
                                                 "run as APP@base and APP@head in place of the plan's apps")),
        "modes": (list[str], setting(["all"], "runtime modes to run, all, or main (each app's first mode)")),
        "scenarios": (list[str], setting(list(DEFAULT_SCENARIOS), "scenarios to run, in the lab's order")),
        "repeats": (int, setting(3, "measurements of each load point", "repeats", ge=1)),
        "reductions": (list[str], setting([], "how this plan differs from its study")),
        "limits": (LimitSettings, setting(LimitSettings())),
        "topology": (TopologySettings, setting(TopologySettings())),
        "placement": (PlacementSettings, setting(PlacementSettings())),
        "rounds": (RoundSettings, setting(RoundSettings())),
        "profile": (ProfileSettings, setting(ProfileSettings())),
        "sample_hz": (float, setting(20.0, "RSS and CPU samples a second, exec to exit", "Hz", gt=0, le=200)),
        "verify": (bool, setting(True, "check the contract before measuring an app/mode")),
        "cv_threshold": (float, setting(0.10, "a CV above this marks a figure noisy", "ratio", gt=0)),
        "mode_scenarios": (dict[str, list[str]], setting({}, "narrower scenario lists for an app's extra modes")),
        "run_on": (dict[str, list[str]], setting({}, "a scenario that runs on one app/mode only: the first of its list "
                                                     "that runs here (e.g. soak = [\"quarkus/native\", \"quarkus/jvm\"])")),
        "cost": (dict, setting({}, "the cost model's assumptions (see perflab.cost_assumptions)")),
    }


@lru_cache(maxsize=1)
def schema() -> type[Settings]:
    """The plan's settings model: the top-level keys and one table per registered scenario."""
    fields = _top_level_fields()
    for sc in registry.all_scenarios():
        fields[sc.name] = (sc.settings, setting(sc.settings()))
    return create_model("PlanSettings", __base__=Settings, **fields)


def _check_scenarios(names: list[str], where: str, source: str) -> None:
    allowed = registry.plannable_names()
    unknown = [s for s in names if s not in allowed]
    if unknown:
        raise LabError(f"{source}: unknown scenario {unknown[0]!r}" + (f" in {where}" if where else ""),
                       fix=f"allowed scenarios: {', '.join(allowed)}")


_FROM_STARTUP = {"scaleup": ("poll_ms",), "coldstart": ("poll_ms", "timeout_s", "path"), "density": ("timeout_s",),
                 "soak": ("timeout_s",), "aot": ("timeout_s",)}


def upgrade_legacy(raw: dict[str, Any]) -> dict[str, Any]:
    """A plan written for an older perflab, in today's layout: memory.rest_s became startup.rest_s
    (RSS at rest is measured on the start-up launches, and was only when memory was planned) and
    density.rest_s; memory.sample_hz became the top-level sample_hz."""
    raw = {k: (dict(v) if isinstance(v, dict) else v) for k, v in raw.items()}
    memory = raw.get("memory")
    if isinstance(memory, dict) and ("rest_s" in memory or "sample_hz" in memory):
        if "rest_s" in memory:
            rest = memory.pop("rest_s")
            planned = raw.get("scenarios", DEFAULT_SCENARIOS)
            raw.setdefault("startup", {}).setdefault("rest_s", rest if "memory" in planned else 0.0)
            if "density" in planned:  # an unplanned density keeps today's default
                raw.setdefault("density", {}).setdefault("rest_s", rest)
        if "sample_hz" in memory:
            raw.setdefault("sample_hz", memory.pop("sample_hz"))
    startup = raw.get("startup")
    if isinstance(startup, dict):
        # launches of other scenarios used to poll and wait as the plan's start-up did
        for scenario, keys in _FROM_STARTUP.items():
            for key in keys:
                if key in startup and isinstance(raw.get(scenario, {}), dict):
                    raw.setdefault(scenario, {}).setdefault(key, startup[key])
    return raw


def check_versions(versions: dict[str, list[str]], source: str) -> None:
    for app, listed in versions.items():
        for v in listed:
            check_version(v, f"{source}: versions.{app}")


def validate(raw: dict[str, Any], source: str = "plan", known_apps: list[str] | None = None) -> Plan:
    model = validate_settings(schema(), upgrade_legacy(raw), source)
    data = model.as_plan()
    _check_scenarios(data["scenarios"], "", source)
    for mode, chosen in data["mode_scenarios"].items():
        _check_scenarios(chosen, f"mode_scenarios.{mode}", source)
    _check_scenarios(list(data["run_on"]), "run_on", source)
    for scenario, labels in data["run_on"].items():
        bad = [label for label in labels if label.count("/") != 1]
        if bad or not labels:
            raise LabError(f"{source}: run_on.{scenario} must list app/mode names such as \"quarkus/jvm\""
                           + (f", not {bad[0]!r}" if bad else ""))
    data["cost"] = cost_assumptions.assumptions(data["cost"])
    for sc in registry.all_scenarios():  # rules across the plan's scenarios, each declared by its scenario
        if sc.check_plan is not None:
            sc.check_plan(data, source)
    check_versions(data["versions"], source)
    check_profile(data, source)
    if known_apps is not None:
        bad = [a for a in data["versions"] if a not in known_apps]
        if bad:
            raise LabError(f"{source}: unknown app {bad[0]!r} in versions", fix=f"allowed apps: {', '.join(known_apps)}")
        for key in ("apps", "skip_apps"):
            bad = [a for a in data[key] if a != "all" and a not in known_apps]
            if bad:
                raise LabError(f"{source}: unknown app {bad[0]!r} in {key}",
                               fix=f"allowed apps: all, {', '.join(known_apps)}")
    return Plan(data, source, model)


def load(name_or_path: str, known_apps: list[str] | None = None) -> Plan:
    """A built-in plan by name, or a TOML file by path."""
    path = Path(name_or_path)
    if not path.exists():
        builtin = PLANS_DIR / f"{name_or_path}.toml"
        if not builtin.exists():
            raise LabError(f"no plan file or built-in plan named {name_or_path!r}",
                           fix=f"built-in plans: {', '.join(builtin_names())}; or give a path to a .toml file")
        path = builtin
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise LabError(f"{path.name} is not valid TOML: {exc}") from exc
    dirs = raw.get("app_dirs")
    if isinstance(dirs, list):  # stored absolute, so the run records where each app came from
        raw["app_dirs"] = [str((path.parent / Path(d).expanduser()).resolve()) if isinstance(d, str) else d
                           for d in dirs]
    loaded = validate(raw, path.name, known_apps)
    _check_fits_here(loaded)
    return loaded


def _check_fits_here(loaded: Plan) -> None:
    """A local plan may not ask the app more CPUs than this machine has (a stored run from a larger
    machine still loads; on a cluster the scheduler checks the nodes)."""
    if loaded["placement"]["kind"] != "local":
        return
    try:
        cpu_quota.check_cores(loaded["limits"]["cpus"], len(online_cpus()))
    except ValueError as exc:
        raise LabError(f"{loaded.source}: {exc}", fix="lower limits.cpus, or run the plan on a larger machine") from None


LOADED_PATH_KEYS = ("path", "load_path")


def retarget(data: dict[str, Any], path: str) -> dict[str, Any]:
    """The plan's data with every path its scenarios load set to `path` (an app's own load_path):
    a scenario's `path`/`load_path` and each entry of its lists of points or series (a series is
    named after its path, and the first of those that end up with one name is kept; points that end
    up the same are kept once). An empty path (start-up's: the app's own first-response path) is
    left as it is."""
    name = path.strip("/").split("/")[0] or "root"
    out = dict(data)
    for key, table in data.items():
        if not isinstance(table, dict):
            continue
        table = dict(table)
        for field_name, value in table.items():
            if field_name in LOADED_PATH_KEYS and isinstance(value, str) and value:
                table[field_name] = path
            elif isinstance(value, list) and value and all(isinstance(v, dict) and "path" in v for v in value):
                entries = [{**v, "path": path, **({"name": name} if "name" in v else {})} for v in value]
                kept: dict[str, dict] = {}
                for entry in entries:
                    kept.setdefault(entry["name"] if "name" in entry else repr(entry), entry)
                table[field_name] = list(kept.values())
        out[key] = table
    return out


def builtin_names() -> list[str]:
    return sorted(p.stem for p in PLANS_DIR.glob("*.toml"))


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, Settings):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.as_plan().items()) + " }"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }" if value else "{}"
    return repr(value)


def describe_settings() -> str:
    """Every plan table and key with its type, default, unit and meaning (`perflab plan --settings`)."""
    lines = []

    def table(title: str, model: type[Settings], prefix: str = "") -> None:
        lines.append(f"[{title}]" if title else "(top level)")
        for key, f in model.model_fields.items():
            if isinstance(f.annotation, type) and issubclass(f.annotation, Settings):
                continue
            unit = unit_of(model, key)
            default = "(required)" if f.is_required() else _toml(f.default)
            lines.append(f"  {prefix}{key} = {default}{' ' + unit if unit else ''}  # {f.description or ''}".rstrip(" #"))
        lines.append("")
        for key, f in model.model_fields.items():  # a table's own tables (e.g. [ab.base]) after it
            if title and isinstance(f.annotation, type) and issubclass(f.annotation, Settings):
                table(f"{title}.{key}", f.annotation)

    root = schema()
    table("", root)
    for key, f in root.model_fields.items():
        if isinstance(f.annotation, type) and issubclass(f.annotation, Settings):
            table(key, f.annotation)
    return "\n".join(lines)


def with_budget(plan_obj: Plan, minutes: float) -> Plan:
    """The plan with a time budget of its own for adding rounds (`--budget MIN`): rounds of the
    unsettled headline ratios are added while one more would end the run within `minutes` of its
    first step (its max_rounds lifted to rounds.BUDGET_MAX_ROUNDS). How many rounds a run buys is not part
    of its method (store.ROUNDS_NOT_METHOD), so such a run pools and compares with the plan's others."""
    rounds = plan_obj.data.get("rounds") or {}
    if not minutes > 0:
        raise LabError(f"--budget {minutes:g}: give the minutes the rounds may run to, more than 0")
    if not (rounds.get("target") or 0) > 0 or not rounds.get("interleave", True):
        why = "its rounds.target is 0" if rounds.get("interleave", True) else "its rounds.interleave is false"
        raise LabError(f"--budget adds rounds until a headline ratio settles, and plan {plan_obj.name} settles none "
                       f"({why}: it runs its planned launches only)",
                       fix="give the plan [rounds] interleave = true and a target (e.g. 0.10) in a plan file, or "
                           "leave out --budget")
    data = {**plan_obj.data, "rounds": {**rounds, "budget_min": float(minutes),
                                        "max_rounds": max(int(rounds.get("max_rounds") or 0), BUDGET_MAX_ROUNDS)}}
    return validate(data, plan_obj.source)


def with_profiling(plan_obj: Plan) -> Plan:
    """The plan with profiling on (`--profile`): a plan of its own, so its method hash differs."""
    data = {**plan_obj.data, "profile": {**plan_obj.data["profile"], "enabled": True}}
    return validate(data, plan_obj.source)
