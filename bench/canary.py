"""Repeatability and cost of the host-speed canary (perflab/probes/canary.py).

    python3 bench/canary.py [--runs 30] [--cpus 0,1] [--reps 5] [--with-load]

For each CPU, `--runs` readings in a row (each one `measure()` call: a process pinned to that CPU,
`--reps` repetitions, the reading is their median), with the machine otherwise quiet: the median
reading, the CV and min-max across readings, the integer and memory parts, the spread within a
reading, and what one `measure()` call costs in wall time (process start included). With
--with-load the same again while a busy loop runs on the same CPU (the reading should about
double: the canary gets half the CPU) and while it runs on another CPU (the reading should
barely move: the canary sees the CPU it runs on). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from perflab.probes import canary  # noqa: E402

BUSY_LOOP = "import os, sys\nos.sched_setaffinity(0, [int(sys.argv[1])])\nwhile True: pass\n"


@contextmanager
def busy_loop(cpu: int | None) -> Iterator[None]:
    """A pure-Python busy loop pinned to ``cpu`` for the duration (none for ``None``)."""
    if cpu is None:
        yield
        return
    loop = subprocess.Popen([sys.executable, "-c", BUSY_LOOP, str(cpu)])
    try:
        time.sleep(0.3)  # running and pinned before the first reading
        yield
    finally:
        loop.kill()
        loop.wait()


def cv(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else 0.0


def row(label: str, cpu: int, runs: int, reps: int, binary: Path) -> dict[str, float]:
    """``runs`` readings on ``cpu``, printed as one line; returns the medians of the parts."""
    readings, walls = [], []
    for _ in range(runs):
        start = time.perf_counter()
        readings.append(canary.measure([cpu], reps=reps, binary=binary))
        walls.append((time.perf_counter() - start) * 1000)
    ms, alu, mem = ([getattr(r, part) for r in readings] for part in ("ms", "alu_ms", "mem_ms"))
    print(f"{label:<22} {cpu:>3} {statistics.median(ms):>9.2f} {cv(ms) * 100:>6.1f} "
          f"{min(ms):>8.2f}-{max(ms):<8.2f} {statistics.median(alu):>7.2f} {cv(alu) * 100:>6.1f} "
          f"{statistics.median(mem):>7.2f} {cv(mem) * 100:>6.1f} "
          f"{statistics.median(r.spread for r in readings) * 100:>8.1f} "
          f"{statistics.median(walls):>7.0f} {max(walls):>8.0f}")
    return {"total": statistics.median(ms), "alu": statistics.median(alu),
            "mem": statistics.median(mem)}


def ratios(label: str, loaded: dict[str, float], quiet: dict[str, float]) -> str:
    return f"{label} / quiet: " + ", ".join(f"{part} {loaded[part] / quiet[part]:.2f}x"
                                             for part in ("total", "alu", "mem"))


def main() -> None:
    parser = argparse.ArgumentParser(description="repeatability and cost of the host-speed canary")
    parser.add_argument("--runs", type=int, default=30, help="readings per row")
    parser.add_argument("--cpus", default="0,1", help="CPUs to read, comma-separated")
    parser.add_argument("--reps", type=int, default=5, help="repetitions per reading")
    parser.add_argument("--with-load", action="store_true",
                        help="also read while a busy loop runs on the same CPU and on another")
    args = parser.parse_args()
    cpus = [int(cpu) for cpu in args.cpus.split(",")]
    binary = canary.ensure()
    load = os.getloadavg()
    print(f"canary {binary.name}: work {canary.DEFAULT_WORK:,} ALU steps + "
          f"{canary.DEFAULT_WORK // 8:,} chase steps per repetition, {args.reps} repetitions per "
          f"reading, {args.runs} readings per row; CPUs {sorted(os.sched_getaffinity(0))}, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
    header = (f"{'condition':<22} {'cpu':>3} {'median ms':>9} {'CV %':>6} {'min-max ms':>17} "
              f"{'alu ms':>7} {'CV %':>6} {'mem ms':>7} {'CV %':>6} {'spread %':>8} "
              f"{'wall ms':>7} {'max wall':>8}")
    print(header)
    print("-" * len(header))
    for cpu in cpus:
        quiet = row("quiet", cpu, args.runs, args.reps, binary)
        if not args.with_load:
            continue
        with busy_loop(cpu):
            same = row("busy loop, same CPU", cpu, args.runs, args.reps, binary)
        others = [c for c in sorted(os.sched_getaffinity(0)) if c != cpu]
        other = None
        if others:
            with busy_loop(others[0]):
                other = row(f"busy loop on CPU {others[0]}", cpu, args.runs, args.reps, binary)
        print(f"  {ratios('same CPU', same, quiet)}")
        if other:
            print(f"  {ratios('other CPU', other, quiet)}")
    print("\nmedian ms: median of the readings (alu, mem: of their parts); CV: across readings; "
          "spread: max/min - 1 of the repetitions within one reading (median over readings); "
          "wall: one measure() call, process start included")


if __name__ == "__main__":
    main()
