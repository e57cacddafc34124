"""CPU cost of the lab's probes: the RSS/CPU sampler and the time-to-first-response poll.

    python3 bench/probe_overhead.py [--seconds 5] [--jvm]

The sampler runs against a process tree (a python parent with 4 children holding 20 MB each;
with --jvm also a JVM sleeping in a single-file program) at 10, 20 and 50 Hz, with the default
cached /proc scan, with a full /proc scan every sample, and reading a cgroup as well where one
can be made. Its cost is the sampler thread's own CPU time (user + system). The TTFR poll runs at
5 ms against a closed port (connection refused: the usual state while an app starts) and against
a listening server that answers 404 (a full HTTP exchange per attempt).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from perflab.isolate import Cgroup, Limits, detect_cgroups  # noqa: E402
from perflab.probes import ResourceSampler, poll_http, process_tree  # noqa: E402

PYTHON_TREE = """
    import subprocess, sys, time
    code = "import time; b = b'x' * (20 << 20); print('ok', flush=True); time.sleep(3600)"
    kids = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
            for _ in range(4)]
    for kid in kids:
        kid.stdout.readline()
    print("ready", flush=True)
    time.sleep(3600)
"""

JVM_MAIN = """
public class Idle {
    public static void main(String[] args) throws Exception {
        byte[] block = new byte[32 << 20];
        java.util.Arrays.fill(block, (byte) 1);
        System.out.println("ready");
        Thread.sleep(3_600_000);
    }
}
"""


@dataclass
class Row:
    tree: str
    variant: str
    hz: float
    samples: int
    achieved_hz: float
    cpu_pct: float       # of one core
    us_per_sample: float
    late: int


def start_tree(kind: str, stack: ExitStack, preexec=None) -> subprocess.Popen:
    if kind == "python":
        argv = [sys.executable, "-c", textwrap.dedent(PYTHON_TREE)]
    else:
        source = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "Idle.java"
        source.write_text(JVM_MAIN)
        argv = ["java", "-Xmx64m", str(source)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=preexec)

    def stop() -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()

    stack.callback(stop)
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        raise RuntimeError(f"the {kind} tree did not start")
    return proc


def measure_sampler(tree: str, variant: str, pid: int, hz: float, seconds: float,
                    cgroup: Cgroup | None = None) -> Row:
    sampler = ResourceSampler(pid, hz=hz, cgroup=cgroup, rescan_s=0 if variant == "full scan"
                              else 10.0)
    started = time.monotonic()
    sampler.start()
    time.sleep(seconds)
    series = sampler.stop()
    wall = time.monotonic() - started
    count = len(series.samples)
    return Row(tree=f"{tree} ({len(process_tree(pid))} procs)", variant=variant, hz=hz,
               samples=count, achieved_hz=count / wall, cpu_pct=100 * sampler.self_cpu_s / wall,
               us_per_sample=1e6 * sampler.self_cpu_s / max(count, 1), late=sampler.late)


def sampler_rows(tree: str, seconds: float) -> list[Row]:
    rows: list[Row] = []
    setup = detect_cgroups()
    with ExitStack() as stack:
        proc = start_tree(tree, stack)
        for hz in (10, 20, 50):
            rows.append(measure_sampler(tree, "cached scan", proc.pid, hz, seconds))
            rows.append(measure_sampler(tree, "full scan", proc.pid, hz, seconds))
    if setup.usable:
        with ExitStack() as stack:
            group = stack.enter_context(Cgroup(f"bench-{os.getpid()}", tree, Limits(),
                                               setup=setup))
            proc = start_tree(tree, stack, preexec=group.preexec)
            for hz in (10, 20, 50):
                rows.append(measure_sampler(tree, "cached + cgroup", proc.pid, hz, seconds,
                                            cgroup=group))
    return rows


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def measure_poll(label: str, url: str, seconds: float, interval_ms: float) -> tuple:
    cpu0, wall0 = time.thread_time(), time.monotonic()
    result = poll_http(url, time.monotonic_ns(), timeout_s=seconds, interval_ms=interval_ms)
    cpu, wall = time.thread_time() - cpu0, time.monotonic() - wall0
    return (label, interval_ms, result.attempts, result.attempts / wall, 100 * cpu / wall,
            1e6 * cpu / max(result.attempts, 1))


def poll_rows(seconds: float) -> list[tuple]:
    rows = [measure_poll("closed port (refused)", f"http://127.0.0.1:{free_port()}/hello",
                         seconds, 5.0)]
    port = free_port()
    with tempfile.TemporaryDirectory() as empty:
        server = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1",
                                   str(port)], cwd=empty, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                with socket.socket() as sock:
                    if sock.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.05)
            rows.append(measure_poll("server answering 404", f"http://127.0.0.1:{port}/ready",
                                     seconds, 5.0))
        finally:
            server.kill()
            server.wait()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="CPU overhead of perflab's probes")
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--jvm", action="store_true", help="also sample a JVM (needs java)")
    args = parser.parse_args()
    trees = ["python"] + (["jvm"] if args.jvm and shutil.which("java") else [])
    if args.jvm and "jvm" not in trees:
        print("java not found: JVM tree skipped")

    print(f"CPUs: {os.cpu_count()}, /proc entries: "
          f"{sum(1 for n in os.listdir('/proc') if n.isdigit())}, "
          f"cgroups: {detect_cgroups().kind}, {args.seconds:g} s per row\n")
    print("Sampler (cost = the sampler thread's own CPU time)")
    header = (f"{'tree':<20} {'variant':<16} {'Hz':>4} {'samples':>7} {'got Hz':>7} "
              f"{'CPU % of 1 core':>15} {'µs/sample':>9} {'late':>4}")
    print(header)
    print("-" * len(header))
    for tree in trees:
        for row in sampler_rows(tree, args.seconds):
            print(f"{row.tree:<20} {row.variant:<16} {row.hz:>4g} {row.samples:>7} "
                  f"{row.achieved_hz:>7.1f} {row.cpu_pct:>15.2f} {row.us_per_sample:>9.0f} "
                  f"{row.late:>4}")

    print("\nTime-to-first-response poll (cost = the polling thread's CPU time)")
    header = (f"{'target':<24} {'interval ms':>11} {'attempts':>8} {'per s':>6} "
              f"{'CPU % of 1 core':>15} {'µs/attempt':>10}")
    print(header)
    print("-" * len(header))
    for label, interval, attempts, rate, pct, per in poll_rows(args.seconds):
        print(f"{label:<24} {interval:>11g} {attempts:>8} {rate:>6.0f} {pct:>15.2f} {per:>10.0f}")


if __name__ == "__main__":
    main()
