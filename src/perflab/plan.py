"""A lab plan (TOML): which apps x modes x scenarios, under which limits and topology, how many
repeats, with each scenario's parameters. Validated up front with errors that name the bad key and
the allowed values, so a typo never silently falls back to a default.

Built-in plans live in perflab/plans/ (quick, rt2019, lab2020, kt2020); `perflab run FILE` takes
a user's own. Every default is written into the stored plan, so a run records exactly what it did.
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perflab.errors import LabError

PLANS_DIR = Path(__file__).parent / "plans"

SCENARIOS = ["footprint", "startup", "memory", "sweep", "latency", "write", "density", "scaleup",
             "coldstart", "soak"]
IMPLEMENTED = set(SCENARIOS)

# Each table: key -> (type or tuple of types, default). A default of None means "required or unset".
_SPEC: dict[str, dict[str, tuple[Any, Any]]] = {
    "": {
        "name": (str, None), "description": (str, ""), "apps": (list, ["all"]), "modes": (list, ["all"]),
        "scenarios": (list, ["footprint", "startup", "memory", "sweep", "latency", "write"]),
        "repeats": (int, 3), "reductions": (list, []),
        "limits": (dict, {}), "topology": (dict, {}), "startup": (dict, {}), "memory": (dict, {}),
        "sweep": (dict, {}), "latency": (dict, {}), "write": (dict, {}), "footprint": (dict, {}),
        "density": (dict, {}), "scaleup": (dict, {}), "coldstart": (dict, {}), "soak": (dict, {}),
        "verify": (bool, True), "cv_threshold": (float, 0.10), "mode_scenarios": (dict, {}),
        "cost": (dict, {}),  # LAB-2020 cost-model assumptions; checked by perflab.report.cost
    },
    "limits": {
        "cpus": (int, 1), "memory_mb": (int, 1024), "jvm_opts": (list, []), "jdk": (int, 0),
    },
    "topology": {
        "app_cpus": (list, []), "driver_cpus": (list, []), "db_cpus": (list, []),
    },
    "startup": {
        "runs": (int, 5), "timeout_s": (float, 180.0), "poll_ms": (float, 5.0), "path": (str, ""),
    },
    "memory": {
        "rest_s": (float, 5.0), "load_path": (str, "/fruits"), "load_connections": (int, 10),
        "load_duration_s": (float, 10.0), "warmup_s": (float, 5.0), "sample_hz": (float, 20.0),
    },
    "sweep": {
        "series": (list, None), "duration_s": (float, 10.0), "warmup_s": (float, 10.0), "threads": (int, 0),
        "timeout_s": (float, 2.0),
    },
    "latency": {
        "path": (str, "/fruits"), "fractions": (list, [0.25, 0.5, 0.75]), "duration_s": (float, 10.0),
        "connections": (int, 20), "warmup_s": (float, 5.0),
    },
    "write": {
        "connections": (int, 10), "threads": (int, 2), "duration_s": (float, 10.0), "warmup_s": (float, 5.0),
    },
    "footprint": {},
    "density": {
        "budget_mb": (int, 2048), "max_instances": (int, 40), "load_duration_s": (float, 10.0),
        "load_path": (str, "/fruits"), "connections_per_instance": (int, 4), "warmup_s": (float, 5.0),
    },
    "scaleup": {"runs": (int, 3), "timeout_s": (float, 180.0)},
    "coldstart": {"reference": (str, "go-reference"), "runs": (int, 3)},
    "soak": {"duration_s": (float, 120.0), "path": (str, "/fruits"), "connections": (int, 10),
             "rate": (float, 0.0), "interval_s": (float, 10.0)},
}
_SERIES_KEYS = {"name": (str, None), "path": (str, None), "connections": (list, None)}


@dataclass
class Plan:
    """A validated plan; `data` holds every key with defaults filled in (what gets stored)."""

    data: dict[str, Any]
    source: str

    @property
    def name(self) -> str:
        return self.data["name"]

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def section(self, scenario: str) -> dict[str, Any]:
        return self.data[scenario]

    def scenarios_for(self, mode: str, app_default: bool = False) -> list[str]:
        """The scenarios a mode gets: mode_scenarios may narrow them for an app's extra modes (an
        app's first, default mode always gets them all: a reactive-only app is not an extra mode)."""
        if app_default:
            return self.data["scenarios"]
        return self.data["mode_scenarios"].get(mode, self.data["scenarios"])


def _type_name(t) -> str:
    names = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "a table", bool: "true/false"}
    return names.get(t, str(t))


def _check_table(table: dict, spec: dict[str, tuple[Any, Any]], where: str, source: str) -> dict:
    out = {}
    unknown = sorted(set(table) - set(spec))
    if unknown:
        raise LabError(f"{source}: unknown key {where}{unknown[0]!s}" + (f" (and {', '.join(unknown[1:])})" if unknown[1:] else ""),
                       fix=f"allowed keys{' in [' + where.rstrip('.') + ']' if where else ''}: {', '.join(sorted(spec)) or '(none)'}")
    for key, (typ, default) in spec.items():
        if key not in table:
            if default is None and where == "" and key == "name":
                raise LabError(f"{source}: the plan needs a 'name'")
            out[key] = copy.deepcopy(default)
            continue
        value = table[key]
        if typ is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
            raise LabError(f"{source}: {where}{key} must be {_type_name(typ)}, got {value!r}")
        out[key] = value
    return out


def validate(raw: dict[str, Any], source: str = "plan", known_apps: list[str] | None = None) -> Plan:
    data = _check_table(raw, _SPEC[""], "", source)
    for section in [k for k, (t, _) in _SPEC[""].items() if t is dict and k in _SPEC]:
        data[section] = _check_table(data[section], _SPEC[section], f"{section}.", source)
    unknown = [s for s in data["scenarios"] if s not in SCENARIOS]
    if unknown:
        raise LabError(f"{source}: unknown scenario {unknown[0]!r}", fix=f"allowed scenarios: {', '.join(SCENARIOS)}")
    from perflab.report import cost  # the cost model owns its assumptions' validation

    data["cost"] = cost.assumptions(data["cost"])
    for mode, chosen in data["mode_scenarios"].items():
        if not isinstance(chosen, list) or any(s not in SCENARIOS for s in chosen):
            raise LabError(f"{source}: mode_scenarios.{mode} must be a list of scenarios",
                           fix=f"allowed scenarios: {', '.join(SCENARIOS)}")
    if data["repeats"] < 1:
        raise LabError(f"{source}: repeats must be at least 1, got {data['repeats']}")
    if known_apps is not None:
        bad = [a for a in data["apps"] if a != "all" and a not in known_apps]
        if bad:
            raise LabError(f"{source}: unknown app {bad[0]!r} in apps", fix=f"allowed apps: all, {', '.join(known_apps)}")
    if data["limits"]["cpus"] < 1:
        raise LabError(f"{source}: limits.cpus must be at least 1")
    if data["limits"]["memory_mb"] < 64:
        raise LabError(f"{source}: limits.memory_mb must be at least 64 (MB)")
    if data["limits"]["jdk"] not in (0, 11, 17, 21, 25):
        raise LabError(f"{source}: limits.jdk must be 0 (the mode's own), 11, 17, 21 or 25, got {data['limits']['jdk']}")
    series = data["sweep"]["series"]
    if series is None:
        data["sweep"]["series"] = series = [{"name": "fruits", "path": "/fruits", "connections": [1, 5, 10, 20, 40]}]
    for i, s in enumerate(series):
        if not isinstance(s, dict):
            raise LabError(f"{source}: sweep.series[{i}] must be a table with name, path, connections")
        checked = _check_table(s, _SERIES_KEYS, f"sweep.series[{i}].", source)
        for key in ("name", "path", "connections"):
            if checked[key] is None:
                raise LabError(f"{source}: sweep.series[{i}] needs '{key}'")
        if not checked["connections"] or not all(isinstance(c, int) and c >= 1 for c in checked["connections"]):
            raise LabError(f"{source}: sweep.series[{i}].connections must be a list of positive integers")
        series[i] = checked
    fractions = data["latency"]["fractions"]
    if not fractions or not all(isinstance(f, (int, float)) and 0 < f <= 1.5 for f in fractions):
        raise LabError(f"{source}: latency.fractions must be numbers in (0, 1.5] (fractions of the measured max req/s)")
    if data["startup"]["runs"] < 2:
        raise LabError(f"{source}: startup.runs must be at least 2 (the first, cold run is kept apart)")
    if data["scaleup"]["runs"] < 2:
        raise LabError(f"{source}: scaleup.runs must be at least 2 (the first, cold run is kept apart)")
    if data["density"]["max_instances"] < 1 or data["density"]["budget_mb"] < 64:
        raise LabError(f"{source}: density.max_instances must be >= 1 and density.budget_mb >= 64")
    if not (0 < data["soak"]["interval_s"] <= data["soak"]["duration_s"]):
        raise LabError(f"{source}: soak.interval_s must be > 0 and at most soak.duration_s")
    if not (0 < data["startup"]["poll_ms"] <= 5):
        raise LabError(f"{source}: startup.poll_ms must be in (0, 5] ms")
    return Plan(data, source)


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
    return validate(raw, path.name, known_apps)


def builtin_names() -> list[str]:
    return sorted(p.stem for p in PLANS_DIR.glob("*.toml"))
