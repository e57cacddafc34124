"""oha: the open-loop driver, a fixed request rate with coordinated-omission-free latencies.

Chosen by measurement (bench/drivers.py, bench/README.md): with ``-q R --latency-correction`` oha
holds the offered rate and times every request from the moment it was *scheduled*, so a server
stall shows up in the percentiles instead of being hidden by a driver that waits. Its percentiles
are exact (computed over every recorded request), reported as JSON.

``ensure_oha()`` builds the pinned version once with cargo into the cache; ``run_oha()`` runs an
unmeasured warm-up and the measured run, pinned to the driver's CPUs, and returns a LoadResult.
Without ``rate`` it runs closed loop (as fast as the connections allow).
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from .base import (ErrorCounts, LatencyStats, LoadResult, assess_driver_bound, percentile_key,
                   run_driver)
from .install import OHA_VERSION, Log, ensure_cargo_binary, say

DEADLINE_ABORT = "aborted due to deadline"


def ensure_oha(log: Log = say) -> Path:
    """Path of the cached oha build; builds it with cargo (pinned, --locked) if absent."""
    return ensure_cargo_binary("oha", OHA_VERSION, expected_minutes=10, log=log)


def oha_version(oha: Path | str) -> str:
    done = subprocess.run([str(oha), "--version"], capture_output=True, text=True)
    words = done.stdout.split()
    return words[1] if len(words) > 1 else "unknown"


@dataclass
class OhaFigures:
    """What one oha JSON report tells; times in ms."""

    requests: int  # responses of any status
    duration_s: float
    latency: LatencyStats
    errors: ErrorCounts

    @property
    def rps(self) -> float:
        return self.requests / self.duration_s if self.duration_s > 0 else 0.0


def classify_error(message: str) -> str:
    """Map one of oha's error messages to timeouts / connect / read / write / other."""
    text = message.lower()
    if "timeout" in text or "timed out" in text:
        return "timeouts"
    if "broken pipe" in text:
        return "write"
    if any(word in text for word in ("closed", "reset", "incomplete", "eof")):
        return "read"
    if "refused" in text or "connect" in text:  # "Connection refused", "error trying to connect"
        return "connect"
    return "other"


def parse_oha_json(text: str) -> OhaFigures:
    """Figures of oha's ``--output-format json`` report."""
    report = json.loads(text)
    summary = report["summary"]
    statuses = {str(k): int(v) for k, v in (report.get("statusCodeDistribution") or {}).items()}
    errors = ErrorCounts(status_counts=statuses,
                         non_2xx=sum(v for k, v in statuses.items() if int(k) >= 400))
    for message, count in (report.get("errorDistribution") or {}).items():
        if message == DEADLINE_ABORT:  # in flight when the run's time ran out: not a failure
            errors.aborted_at_deadline += int(count)
            continue
        kind = classify_error(message)
        if kind == "other":
            errors.other[message] = errors.other.get(message, 0) + int(count)
        else:
            setattr(errors, kind, getattr(errors, kind) + int(count))

    def ms(value: float | None) -> float | None:
        return None if value is None else value * 1e3

    percentiles = {percentile_key(key.lstrip("p")): value * 1e3
                   for key, value in (report.get("latencyPercentiles") or {}).items()
                   if value is not None}
    latency = LatencyStats(mean_ms=ms(summary.get("average")), max_ms=ms(summary.get("slowest")),
                           min_ms=ms(summary.get("fastest")), percentiles_ms=percentiles)
    return OhaFigures(requests=sum(statuses.values()), duration_s=float(summary["total"]),
                      latency=latency, errors=errors)


def build_command(oha: Path | str, url: str, *, rate: float | None, duration_s: float,
                  connections: int, timeout_s: float, worker_threads: int | None,
                  method: str = "GET", body: str | None = None, content_type: str | None = None,
                  headers: Mapping[str, str] | None = None,
                  latency_correction: bool = True, requests_db: Path | None = None) -> list[str]:
    command = [str(oha), "--no-tui", "--output-format", "json", "-z",
               f"{round(duration_s * 1000)}ms", "-c", str(connections), "-t",
               f"{round(timeout_s * 1000)}ms", "-m", method]
    if rate:
        command += ["-q", f"{rate:g}"] + (["--latency-correction"] if latency_correction else [])
    if worker_threads:
        command += ["--worker-threads", str(worker_threads)]
    if body is not None:
        command += ["-d", body]
    if content_type:
        command += ["-T", content_type]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    if requests_db is not None:  # every request's times, written after the run (perflab.drivers.oha_requests)
        command += ["--db-url", str(requests_db)]
    return command + [url]


def run_oha(url: str, *, rate: float | None, duration_s: float, connections: int = 50,
            warmup_s: float = 0.0, timeout_s: float = 2.0, cpus: Sequence[int] | None = None,
            method: str = "GET", body: str | None = None, content_type: str | None = None,
            headers: Mapping[str, str] | None = None, oha: Path | str | None = None,
            latency_correction: bool = True, requests_db: Path | None = None,
            warmup_requests_db: Path | None = None, log: Log = say) -> LoadResult:
    """Open loop at ``rate`` req/s (closed loop if None) for ``duration_s`` seconds.

    ``connections`` caps the requests in flight: it must exceed rate x worst expected latency,
    or the rate cannot be held (the result is then flagged driver-bound). Latency is corrected
    for coordinated omission (measured from each request's scheduled start). ``warmup_s`` > 0
    runs the same load that long first, unmeasured. ``cpus`` pins the driver and sizes its
    thread pool to them. ``latency_correction=False`` measures from the actual send time instead
    (it hides stalls: only for demonstrating coordinated omission, as bench/drivers.py does).
    ``requests_db`` / ``warmup_requests_db``: files (not existing yet) where oha records every
    request of the measured run / the warm-up, for per-interval figures.
    """
    if rate is not None and rate <= 0:
        raise ValueError(f"rate must be > 0 (or None for closed loop), got {rate}")
    if duration_s <= 0 or connections < 1:
        raise ValueError("need duration_s > 0 and connections >= 1")
    binary = Path(oha) if oha else ensure_oha(log=log)
    threads = len(cpus) if cpus else None
    shape = dict(rate=rate, connections=connections, timeout_s=timeout_s, worker_threads=threads,
                 method=method, body=body, content_type=content_type, headers=headers,
                 latency_correction=latency_correction)
    warmup_started_ns = 0
    if warmup_s > 0:
        warmup_started_ns = time.monotonic_ns()
        warm = build_command(binary, url, duration_s=warmup_s, requests_db=warmup_requests_db, **shape)
        _check(run_driver(warm, cpus=cpus, timeout_s=warmup_s + timeout_s + 30), "warm-up")
    command = build_command(binary, url, duration_s=duration_s, requests_db=requests_db, **shape)
    started_ns = time.monotonic_ns()
    run = _check(run_driver(command, cpus=cpus, timeout_s=duration_s + timeout_s + 30),
                 "measured run")
    figures = parse_oha_json(run.stdout)
    bound, reason = assess_driver_bound(run.utilisation, rate, figures.rps)
    if bound and rate and figures.rps < rate:
        reason += (f" (too few connections for the latency: {connections} in flight at most, "
                   f"or the app saturated)")
    return LoadResult(
        driver="oha", driver_version=oha_version(binary), mode="open" if rate else "closed",
        url=url, connections=connections, threads=threads, duration_s=figures.duration_s,
        warmup_s=float(warmup_s), requests=figures.requests, rps=figures.rps,
        latency=figures.latency, errors=figures.errors, offered_rate=rate, method=method,
        driver_cpus=run.cpus, driver_cpu_s=run.cpu_s, driver_cpu_utilisation=run.utilisation,
        driver_bound=bound, driver_bound_reason=reason, command=run.command,
        raw_output=run.stdout, started_ns=started_ns, warmup_started_ns=warmup_started_ns)


def _check(run, what: str):
    if run.timed_out or run.returncode != 0:
        why = "timed out" if run.timed_out else f"exit code {run.returncode}"
        raise RuntimeError(f"oha {what} failed ({why}): {run.stderr.strip()[-500:]}")
    return run
