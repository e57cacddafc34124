#!/usr/bin/env python3
"""Benchmark of the load drivers on this machine: which one tells the truth, and how much it can
drive from one core.

Measures, with the server on one CPU and the driver pinned to another:
  1. capacity: closed loop, 50 connections, as fast as possible; achieved req/s and the driver's
     CPU time per request (µs), hence what one core of driver can sustain (1e6 / µs per request);
  2. rate accuracy (open-loop drivers): achieved / offered rate and the driver's CPU use at
     several fixed rates;
  3. stall test: a fixed rate (2000 req/s) with the server SIGSTOPped for 1 s; a driver that keeps
     its schedule and measures from it reports p99 close to 1 s, one that waits for the server
     (coordinated omission) reports a small p99.

Candidates: wrk (closed loop, the studies' tool), oha (perflab's open-loop driver, built once
with cargo), vegeta v12.13.0 (built once with go if go is present). The server is nginx (fast
enough not to limit the drivers) if installed, else the Python stand-in of the tests (whose own
limit, a few thousand req/s, then caps the capacity figures; the CPU per request still holds).

Usage: python3 bench/drivers.py [--duration 10] [--rates 1000,5000,10000,20000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from perflab.drivers import (ErrorCounts, LatencyStats, LoadResult,  # noqa: E402
                             assess_driver_bound, cache_dir, ensure_oha, ensure_wrk,
                             run_driver, run_oha, run_wrk)
from tests.support.standin_server import StandinServer  # noqa: E402

VEGETA_VERSION = "12.13.0"
STALL_S = 1.0


# ---- servers -------------------------------------------------------------------------------

class Server:
    """A server on given CPUs that can be stalled (SIGSTOP of its whole process group)."""

    kind = "?"
    url = ""

    def stall(self, at_s: float, seconds: float) -> Callable[[], None]:
        """Stop the server ``at_s`` from now for ``seconds``; returns a function that joins."""
        def run() -> None:
            time.sleep(at_s)
            self.signal(signal.SIGSTOP)
            try:
                time.sleep(seconds)
            finally:
                self.signal(signal.SIGCONT)
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return lambda: thread.join()

    def signal(self, sig: int) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError


class Nginx(Server):
    kind = "nginx (1 worker)"

    def __init__(self, cpus: list[int]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="perflab-bench-nginx-"))
        port = free_port()
        conf = self.dir / "nginx.conf"
        conf.write_text(f"""
worker_processes 1; daemon off; pid {self.dir}/nginx.pid; error_log {self.dir}/error.log;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {self.dir}; proxy_temp_path {self.dir}; fastcgi_temp_path {self.dir};
  uwsgi_temp_path {self.dir}; scgi_temp_path {self.dir};
  server {{ listen 127.0.0.1:{port}; keepalive_requests 10000000;
           location / {{ default_type text/plain; return 200 "Hello from nginx\\n"; }} }}
}}
""")
        self.process = subprocess.Popen(
            [shutil.which("nginx") or "/usr/sbin/nginx", "-c", str(conf), "-p", str(self.dir)],
            start_new_session=True, preexec_fn=lambda: os.sched_setaffinity(0, cpus),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.url = f"http://127.0.0.1:{port}/hello"
        wait_listening(port, self.process)

    def signal(self, sig: int) -> None:
        os.killpg(self.process.pid, sig)

    def stop(self) -> None:
        with_suppress(lambda: os.killpg(self.process.pid, signal.SIGCONT))
        with_suppress(lambda: os.killpg(self.process.pid, signal.SIGTERM))
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with_suppress(lambda: os.killpg(self.process.pid, signal.SIGKILL))
            self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Standin(Server):
    kind = "Python stand-in (asyncio)"

    def __init__(self, cpus: list[int]) -> None:
        self.server = StandinServer(cpus=cpus).start()
        self.url = self.server.url + "/hello"

    def signal(self, sig: int) -> None:
        os.kill(self.server.pid, sig)

    def stop(self) -> None:
        self.server.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen, timeout_s: float = 10) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stderr.read().decode()[-500:]}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def with_suppress(action: Callable[[], None]) -> None:
    try:
        action()
    except ProcessLookupError:
        pass


# ---- vegeta --------------------------------------------------------------------------------

def ensure_vegeta() -> Path | None:
    """vegeta v12.13.0 in the cache, built with go (go get + go build: the module proxy refuses
    `go install ...@version` for it here). None if go is not available."""
    target = cache_dir() / "vegeta" / VEGETA_VERSION / "bin" / "vegeta"
    if target.is_file():
        return target
    go = shutil.which("go") or ("/usr/local/go/bin/go" if Path("/usr/local/go/bin/go").exists()
                                else None)
    if go is None:
        return None
    print(f"building vegeta {VEGETA_VERSION} with go into {target.parent} (one time)",
          file=sys.stderr)
    with tempfile.TemporaryDirectory() as work:
        steps = [[go, "mod", "init", "perflab-vegeta"],
                 [go, "get", f"github.com/tsenart/vegeta/v12@v{VEGETA_VERSION}"],
                 [go, "build", "-o", str(target), "github.com/tsenart/vegeta/v12"]]
        for step in steps:
            done = subprocess.run(step, cwd=work, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"vegeta build failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
                return None
    return target


def run_vegeta(vegeta: Path, url: str, *, rate: float | None, duration_s: float,
               cpus: list[int], max_workers: int | None = None) -> LoadResult:
    """vegeta attack (rate None: as fast as max_workers allow), then its JSON report."""
    with tempfile.TemporaryDirectory() as work:
        targets, results = Path(work) / "targets", Path(work) / "results.bin"
        targets.write_text(f"GET {url}\n")
        command = [str(vegeta), "attack", f"-targets={targets}", f"-output={results}",
                   f"-duration={duration_s}s", f"-rate={rate or 0}/1s", "-timeout=5s"]
        if max_workers:
            command.append(f"-max-workers={max_workers}")
        run = run_driver(command, cpus=cpus, timeout_s=duration_s + 60)
        if run.returncode != 0:
            raise RuntimeError(f"vegeta failed: {run.stderr[-300:]}")
        report = json.loads(subprocess.run([str(vegeta), "report", "-type=json", str(results)],
                                           capture_output=True, text=True, check=True).stdout)
    lat = report["latencies"]
    statuses = {k: v for k, v in report.get("status_codes", {}).items()}
    requests = sum(v for k, v in statuses.items() if k != "0")
    duration = report["duration"] / 1e9
    rps = requests / duration if duration else 0.0
    bound, reason = assess_driver_bound(run.utilisation, rate, rps)
    return LoadResult(
        driver="vegeta", driver_version=VEGETA_VERSION, mode="open" if rate else "closed",
        url=url, connections=max_workers or 0, threads=None, duration_s=duration, warmup_s=0,
        requests=requests, rps=rps,
        latency=LatencyStats(mean_ms=lat["mean"] / 1e6, max_ms=lat["max"] / 1e6,
                             min_ms=lat["min"] / 1e6,
                             percentiles_ms={"50": lat["50th"] / 1e6, "90": lat["90th"] / 1e6,
                                             "99": lat["99th"] / 1e6}),
        errors=ErrorCounts(status_counts=statuses,
                           non_2xx=sum(v for k, v in statuses.items() if int(k) >= 400),
                           other={"failed": statuses.get("0", 0)} if "0" in statuses else {}),
        offered_rate=rate, driver_cpus=run.cpus, driver_cpu_s=run.cpu_s,
        driver_cpu_utilisation=run.utilisation, driver_bound=bound, driver_bound_reason=reason,
        command=run.command)


# ---- measurements --------------------------------------------------------------------------

@dataclass
class Row:
    test: str
    candidate: str
    figures: dict = field(default_factory=dict)


def us_per_request(result: LoadResult) -> float:
    return result.driver_cpu_s * 1e6 / result.requests if result.requests else float("nan")


def capacity(candidates: dict, server: Server, duration: int) -> list[Row]:
    rows = []
    for name, run in candidates.items():
        result = run(server.url, rate=None, duration_s=duration)
        per = us_per_request(result)
        rows.append(Row("capacity", name, {
            "req/s": round(result.rps), "driver CPU µs/req": round(per, 1),
            "driver CPU %": round(100 * result.driver_cpu_utilisation),
            "one-core capacity req/s": round(1e6 / per) if per == per else None,
            "errors": result.errors.total}))
    return rows


def rate_accuracy(candidates: dict, server: Server, duration: int, rates: list[int]) -> list[Row]:
    rows = []
    for name, run in candidates.items():
        for rate in rates:
            result = run(server.url, rate=rate, duration_s=duration)
            rows.append(Row("rate", name, {
                "offered": rate, "achieved": round(result.rps, 1),
                "achieved/offered %": round(100 * result.rps / rate, 2),
                "driver CPU %": round(100 * result.driver_cpu_utilisation),
                "p99 ms": round(result.latency.percentile(99) or float("nan"), 2),
                "errors": result.errors.total, "driver-bound": result.driver_bound}))
    return rows


def stall_test(candidates: dict, server: Server, duration: int, rate: int) -> list[Row]:
    rows = []
    for name, run in candidates.items():
        join = server.stall(at_s=min(3.0, duration / 3), seconds=STALL_S)
        try:
            result = run(server.url, rate=rate, duration_s=duration)
        finally:
            join()
        rows.append(Row("stall", name, {
            "rate": rate if result.mode == "open" else "closed",
            "achieved req/s": round(result.rps, 1),
            "p50 ms": round(result.latency.percentile(50) or float("nan"), 2),
            "p99 ms": round(result.latency.percentile(99) or float("nan"), 1),
            "max ms": round(result.latency.max_ms or float("nan"), 1),
            "errors": result.errors.total}))
    return rows


def print_table(title: str, rows: list[Row]) -> None:
    if not rows:
        return
    keys = list(rows[0].figures)
    header = ["candidate", *keys]
    lines = [[row.candidate, *(str(row.figures.get(k, "")) for k in keys)] for row in rows]
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for line in lines:
        print("| " + " | ".join(line) + " |")


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description="Benchmark the load drivers on this machine.")
    parser.add_argument("--duration", type=int, default=10, help="seconds per measurement")
    parser.add_argument("--rates", default="1000,5000,10000,20000",
                        help="fixed rates for the accuracy test (req/s)")
    parser.add_argument("--stall-rate", type=int, default=2000)
    parser.add_argument("--connections", type=int, default=50, help="closed-loop connections")
    parser.add_argument("--server", choices=["auto", "nginx", "standin"], default="auto")
    parser.add_argument("--no-vegeta", action="store_true", help="skip vegeta")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # tables appear as they are measured

    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        print("needs 2 CPUs (server on one, driver on another)", file=sys.stderr)
        return 2
    server_cpus, driver_cpus = [allowed[0]], [allowed[1]]
    rates = [int(r) for r in args.rates.split(",") if r]
    conns, dur = args.connections, args.duration

    wrk = ensure_wrk()
    oha = ensure_oha()
    vegeta = None if args.no_vegeta else ensure_vegeta()

    def wrk_run(threads_conns: int):
        def run(url, rate, duration_s):
            return run_wrk(url, connections=threads_conns, threads=1, duration_s=duration_s,
                           cpus=driver_cpus, wrk=wrk, timeout_s=5)
        return run

    def oha_run(connections: int, corrected: bool = True):
        def run(url, rate, duration_s):
            return run_oha(url, rate=rate, duration_s=duration_s, connections=connections,
                           timeout_s=5, cpus=driver_cpus, oha=oha, latency_correction=corrected)
        return run

    def vegeta_run(max_workers: int | None):
        def run(url, rate, duration_s):
            return run_vegeta(vegeta, url, rate=rate, duration_s=duration_s, cpus=driver_cpus,
                              max_workers=max_workers)
        return run

    use_nginx = args.server == "nginx" or (args.server == "auto" and shutil.which("nginx"))
    server: Server = Nginx(server_cpus) if use_nginx else Standin(server_cpus)
    rows: list[Row] = []
    try:
        print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, kernel {platform.release()}; "
              f"server: {server.kind} on CPU {server_cpus}, driver on CPU {driver_cpus}; "
              f"{dur} s per measurement; load average before: "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        closed = {f"wrk -t1 -c{conns}": wrk_run(conns), f"oha -c{conns}": oha_run(conns)}
        if vegeta:
            closed[f"vegeta -rate=0 -max-workers={conns}"] = vegeta_run(conns)
        rows += capacity(closed, server, dur)
        print_table("Capacity on one core (closed loop)", rows)

        opened = {"oha -q R --latency-correction -c 200": oha_run(200)}
        if vegeta:
            opened["vegeta -rate R (default workers)"] = vegeta_run(None)
        accuracy = rate_accuracy(opened, server, dur, rates)
        print_table("Rate accuracy (open loop)", accuracy)
        rows += accuracy

        stall = {"oha -q R --latency-correction -c 50": oha_run(50),
                 "oha -q R (no correction) -c 50": oha_run(50, corrected=False),
                 "wrk -t1 -c10 (closed loop)": wrk_run(10)}
        if vegeta:
            stall["vegeta -rate R (default workers)"] = vegeta_run(None)
            stall["vegeta -rate R -max-workers=10"] = vegeta_run(10)
        stalls = stall_test(stall, server, dur, args.stall_rate)
        print_table(f"Stall test: {args.stall_rate} req/s, server stopped {STALL_S:g} s", stalls)
        rows += stalls
    finally:
        server.stop()
    if args.json:
        args.json.write_text(json.dumps([row.__dict__ for row in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
