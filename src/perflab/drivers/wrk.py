"""wrk: the closed-loop driver the published studies used (fixed connections, as fast as it can).

``ensure_wrk()`` installs Debian's wrk when missing; ``run_wrk()`` runs an unmeasured warm-up and
then the measured run, pinned to the driver's CPUs, and returns a ``LoadResult``. Every script the
lab runs gets ``lua/summary.lua`` appended: its done() hook prints the figures as JSON between
marker lines. wrk's text report is parsed as a fallback (e.g. for output stored by older runs).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from .base import (ErrorCounts, LatencyStats, LoadResult, assess_driver_bound, percentile_key,
                   run_driver)
from .install import Log, ensure_apt_binary, say
from .merge import merge

LUA_DIR = Path(__file__).parent / "lua"
BUILTIN_SCRIPTS = {"post_data": LUA_DIR / "post_data.lua", "get_data": LUA_DIR / "get_data.lua"}
SUMMARY_BEGIN = "PERFLAB-WRK-SUMMARY-BEGIN"
SUMMARY_END = "PERFLAB-WRK-SUMMARY-END"


def ensure_wrk(log: Log = say) -> Path:
    """Path of wrk; installs Debian's package with apt-get when root and it is missing."""
    return ensure_apt_binary("wrk", "wrk", log=log)


def wrk_version(wrk: Path | str = "wrk") -> str:
    """wrk's version, e.g. "4.1.0" (wrk -v prints it and exits non-zero)."""
    done = subprocess.run([str(wrk), "-v"], capture_output=True, text=True)
    match = re.search(r"wrk\s+(\S+)", done.stdout + done.stderr)
    return match.group(1) if match else "unknown"


@dataclass
class WrkFigures:
    """What one wrk output tells; times in ms."""

    requests: int
    duration_s: float
    latency: LatencyStats
    errors: ErrorCounts
    threads: int | None = None
    connections: int | None = None
    source: str = "json"  # "json" (done() hook) or "text" (wrk's report)
    notes: list[str] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return self.requests / self.duration_s if self.duration_s > 0 else 0.0


# ---- parsing -------------------------------------------------------------------------------

_TIME_UNITS_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "h": 3600e3}


def parse_time_ms(text: str) -> float:
    """wrk's time notation ("635.91us", "1.00ms", "2.00s", "1.00m") in milliseconds."""
    match = re.fullmatch(r"\s*([0-9.]+)\s*(us|ms|s|m|h)\s*", text)
    if not match:
        raise ValueError(f"not a wrk time: {text!r}")
    return float(match.group(1)) * _TIME_UNITS_MS[match.group(2)]


def parse_wrk_output(text: str) -> WrkFigures:
    """Figures of one wrk run: the JSON summary if present, else wrk's text report."""
    summary = _extract_summary(text)
    figures = _from_summary(summary) if summary is not None else _from_text(text)
    threads, connections = _threads_connections(text)
    figures.threads, figures.connections = threads, connections
    return figures


def _extract_summary(text: str) -> dict | None:
    begin = text.rfind(SUMMARY_BEGIN)
    if begin < 0:
        return None
    end = text.find(SUMMARY_END, begin)
    if end < 0:
        return None
    try:
        return json.loads(text[begin + len(SUMMARY_BEGIN):end])
    except json.JSONDecodeError:
        return None  # a damaged summary: fall back to the text report


def _from_summary(summary: Mapping) -> WrkFigures:
    lat = summary["latency_us"]
    latency = LatencyStats(
        mean_ms=lat["mean"] / 1e3, stdev_ms=lat["stdev"] / 1e3, max_ms=lat["max"] / 1e3,
        min_ms=lat["min"] / 1e3,
        percentiles_ms={percentile_key(k): v / 1e3 for k, v in lat["percentiles"].items()})
    e = summary["errors"]
    errors = ErrorCounts(non_2xx=e["status"], timeouts=e["timeout"], connect=e["connect"],
                         read=e["read"], write=e["write"])
    return WrkFigures(requests=int(summary["requests"]), duration_s=summary["duration_us"] / 1e6,
                      latency=latency, errors=errors, source="json")


_COUNT_SUFFIX = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}


def _from_text(text: str) -> WrkFigures:
    total = re.search(r"^\s*(\d+) requests in ([0-9.]+\s*(?:us|ms|s|m|h)),", text, re.M)
    if not total:
        raise ValueError("not a wrk report: no 'N requests in T' line")
    requests = int(total.group(1))
    duration_s = parse_time_ms(total.group(2)) / 1e3
    latency = LatencyStats()
    row = re.search(r"^\s*Latency\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+%", text, re.M)
    if row:
        latency.mean_ms, latency.stdev_ms, latency.max_ms = (parse_time_ms(v) for v in row.groups())
    # "Latency Distribution" block (wrk --latency): "     99%    4.00ms"
    for pct, value in re.findall(r"^\s*([0-9.]+)%\s+([0-9.]+\s*(?:us|ms|s|m|h))\s*$", text, re.M):
        latency.percentiles_ms[percentile_key(pct)] = parse_time_ms(value)
    errors = ErrorCounts()
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)",
                       text)
    if socket:
        errors.connect, errors.read, errors.write, errors.timeouts = map(int, socket.groups())
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if non_2xx:
        errors.non_2xx = int(non_2xx.group(1))
    # The text report prints 2 decimals of the duration: recompute it from Requests/sec when
    # that is more precise (it is requests / exact duration).
    rate = re.search(r"^Requests/sec:\s+([0-9.]+)", text, re.M)
    if rate and float(rate.group(1)) > 0 and requests > 0:
        duration_s = requests / float(rate.group(1))
    return WrkFigures(requests=requests, duration_s=duration_s, latency=latency, errors=errors,
                      source="text")


def _threads_connections(text: str) -> tuple[int | None, int | None]:
    match = re.search(r"^\s*(\d+) threads and (\d+) connections", text, re.M)
    return (int(match.group(1)), int(match.group(2))) if match else (None, None)


# ---- running -------------------------------------------------------------------------------

def build_command(wrk: Path | str, url: str, *, connections: int, threads: int, duration_s: int,
                  timeout_s: float, script: Path, script_args: Sequence[str] = ()) -> list[str]:
    command = [str(wrk), "-c", str(connections), "-t", str(threads), "-d", f"{duration_s}s",
               "--timeout", f"{max(1, math.ceil(timeout_s))}s", "--latency", "-s", str(script),
               url]
    if script_args:
        command += ["--", *script_args]
    return command


def compose_script(script: str | Path | None, directory: Path) -> Path:
    """The request script (built-in name, a path, or None for plain GET of the URL) with the
    summary hook appended; written to ``directory``. A done() of the script is replaced."""
    parts = []
    if script is not None:
        source = BUILTIN_SCRIPTS.get(str(script), Path(script))
        if not source.is_file():
            raise FileNotFoundError(f"wrk script not found: {script} (built-in: "
                                    f"{', '.join(sorted(BUILTIN_SCRIPTS))})")
        parts.append(source.read_text())
    parts.append((LUA_DIR / "summary.lua").read_text())
    target = directory / "perflab-wrk.lua"
    target.write_text("\n".join(parts))
    return target


def spread_script(ports: Sequence[int]) -> str:
    """A wrk script whose thread i sends to ports[i] (threads = instances): one load over many
    instances of an app, each thread on its own instance."""
    listed = ", ".join(str(int(p)) for p in ports)
    return ("-- perflab: each wrk thread loads its own instance\n"
            f"local ports = {{{listed}}}\n"
            "local assigned = 0\n"
            "function setup(thread)\n"
            "  assigned = assigned + 1\n"
            "  local port = ports[(assigned - 1) % #ports + 1]\n"
            "  thread.addr = wrk.lookup(\"127.0.0.1\", tostring(port))[1]\n"
            "end\n")


def run_wrk_spread(url: str, ports: Sequence[int], *, connections_per_port: int, duration_s: int,
                   cpus: Sequence[int] | None = None, timeout_s: float = 2.0) -> LoadResult:
    """Closed-loop load over several instances at once: one wrk thread per port (a dead
    instance's thread spins on refused connections and shows as errors, not as anyone's load)."""
    with tempfile.TemporaryDirectory(prefix="perflab-spread-") as tmp:
        script = Path(tmp) / "spread.lua"
        script.write_text(spread_script(ports))
        return run_wrk(url, connections=len(ports) * connections_per_port, threads=len(ports),
                       duration_s=duration_s, cpus=cpus, timeout_s=timeout_s, script=script)


def run_wrk(url: str, *, connections: int, threads: int, duration_s: int, warmup_s: int = 0,
            timeout_s: float = 2.0, cpus: Sequence[int] | None = None,
            script: str | Path | None = None, script_args: Mapping[str, str] | None = None,
            wrk: Path | str | None = None, log: Log = say) -> LoadResult:
    """Closed-loop load: ``connections`` over ``threads`` for ``duration_s`` whole seconds.

    ``warmup_s`` > 0 runs wrk that long first, unmeasured. ``script``: None (GET ``url``),
    "post_data" (POST /data, unique keys), "get_data" (GET /data/{key}, script_args key=...), or a
    Lua file. ``cpus`` pins the driver. ``url`` is the base URL for the built-in scripts.
    """
    if threads < 1 or connections < threads:
        raise ValueError(f"wrk needs 1 <= threads <= connections (got {threads}, {connections})")
    if int(duration_s) != duration_s or duration_s < 1 or int(warmup_s) != warmup_s:
        raise ValueError("wrk takes whole seconds: duration_s >= 1, warmup_s >= 0")
    binary = Path(wrk) if wrk else ensure_wrk(log=log)
    args = dict(script_args or {})
    if script == "post_data":
        args.setdefault("prefix", f"p{time.time_ns():x}")  # unique per run: no 409 duplicates
    arg_list = [f"{k}={v}" for k, v in args.items()]
    with tempfile.TemporaryDirectory(prefix="perflab-wrk-") as tmp:
        lua = compose_script(script, Path(tmp))
        if warmup_s:
            warm_args = dict(args)
            if "prefix" in warm_args:  # the warm-up writes keys of its own
                warm_args["prefix"] += "w"
            warm = build_command(binary, url, connections=connections, threads=threads,
                                 duration_s=int(warmup_s), timeout_s=timeout_s, script=lua,
                                 script_args=[f"{k}={v}" for k, v in warm_args.items()])
            _check(run_driver(warm, cpus=cpus, timeout_s=warmup_s + timeout_s + 30), "warm-up")
        command = build_command(binary, url, connections=connections, threads=threads,
                                duration_s=int(duration_s), timeout_s=timeout_s, script=lua,
                                script_args=arg_list)
        run = _check(run_driver(command, cpus=cpus, timeout_s=duration_s + timeout_s + 30),
                     "measured run")
    figures = parse_wrk_output(run.stdout)
    bound, reason = assess_driver_bound(run.utilisation)
    return LoadResult(
        driver="wrk", driver_version=wrk_version(binary), mode="closed", url=url,
        connections=connections, threads=threads, duration_s=figures.duration_s,
        warmup_s=float(warmup_s), requests=figures.requests, rps=figures.rps,
        latency=figures.latency, errors=figures.errors,
        method="POST" if script == "post_data" else "GET", driver_cpus=run.cpus,
        driver_cpu_s=run.cpu_s, driver_cpu_utilisation=run.utilisation, driver_bound=bound,
        driver_bound_reason=reason, command=run.command, raw_output=run.stdout)


def _check(run, what: str):
    if run.timed_out or run.returncode != 0:
        why = "timed out" if run.timed_out else f"exit code {run.returncode}"
        raise RuntimeError(f"wrk {what} failed ({why}): {run.stderr.strip() or run.stdout[-500:]}")
    return run


@dataclass
class TimedRun:
    """One interval of an interval-by-interval run: monotonic start and end, and its figures."""

    start_ns: int
    end_ns: int
    result: LoadResult


@dataclass
class IntervalRuns:
    warmup: list[TimedRun]
    measured: list[TimedRun]
    warmup_s: float = 0.0  # as asked (each run's own duration is wrk's measured one)

    @property
    def merged(self) -> LoadResult:
        """The measured intervals as one load point (perflab.drivers.merge)."""
        result = merge([t.result for t in self.measured])
        result.warmup_s = float(self.warmup_s)
        return result


def run_wrk_intervals(url: str, *, connections: int, threads: int, duration_s: int, interval_s: int = 1,
                      warmup_s: int = 0, timeout_s: float = 2.0, cpus: Sequence[int] | None = None,
                      script: str | Path | None = None, script_args: Mapping[str, str] | None = None,
                      wrk: Path | str | None = None, log: Log = say) -> IntervalRuns:
    """The load of run_wrk as consecutive runs of ``interval_s`` whole seconds (warm-up included),
    so that every interval has its own throughput, errors and latency. Each run opens its
    connections anew: a few milliseconds per interval that every app pays alike."""
    if int(interval_s) != interval_s or interval_s < 1:
        raise ValueError(f"interval_s must be a whole number of seconds >= 1, got {interval_s}")
    binary = Path(wrk) if wrk else ensure_wrk(log=log)
    shape = dict(connections=connections, threads=threads, timeout_s=timeout_s, cpus=cpus, script=script,
                 script_args=script_args, wrk=binary, log=log)

    return interval_runs(lambda length: run_wrk(url, duration_s=length, **shape), duration_s=duration_s,
                         interval_s=interval_s, warmup_s=warmup_s)


def interval_runs(run: Callable[[int], LoadResult], *, duration_s: int, interval_s: int,
                  warmup_s: int = 0) -> IntervalRuns:
    """`run(length)` back to back over whole-second intervals of `interval_s` (the warm-up's first,
    then the measured ones), each run timed: any driver's interval-by-interval load."""

    def timed(seconds: int) -> list[TimedRun]:
        out = []
        for length in _split(int(seconds), int(interval_s)):
            start = time.monotonic_ns()
            result = run(length)
            out.append(TimedRun(start, time.monotonic_ns(), result))
        return out

    return IntervalRuns(timed(warmup_s) if warmup_s else [], timed(duration_s), float(warmup_s))


def _split(seconds: int, interval_s: int) -> list[int]:
    """Whole-second interval lengths adding up to ``seconds``; a remainder joins the last one."""
    if seconds < 1:
        raise ValueError("wrk takes whole seconds >= 1")
    count = max(1, seconds // interval_s)
    return [interval_s] * (count - 1) + [seconds - interval_s * (count - 1)]
