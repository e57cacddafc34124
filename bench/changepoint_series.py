"""A series of runs of one small plan in which one build is slowed on purpose part-way, to see
whether the history's change points (perflab.analysis.changepoints, Apache Otava's E-Divisive) land on the
first slowed run and nowhere else.

    .venv/bin/python bench/changepoint_series.py [--runs 10] [--slow-from 6] [--slow-us 50] [--short]

The plan is `quick` cut to the Go reference and Quarkus (startup and steady, main modes), named
`changepoint-series` so its history is its own. From run --slow-from on (counted from 0), the Go
reference's GET /fruits spins --slow-us microseconds of CPU before it answers: its source
changes, so the lab rebuilds it, while the method (plan, JDKs, framework versions, machine) stays
the same and the slowed runs stay in one series with the others. Quarkus is left as it is: a
change point in its figures would be a false one. The source is restored when the script ends,
also on failure or Ctrl-C.

Each run takes about as long as quick's share of those two apps (several minutes); ten runs take
an hour or more, on a machine kept quiet. `--short` cuts each run to about three minutes: no rounds
target, 20 s of warm-up at most, 10 s measured, no open-loop point (the figures are then partly
warm-up for Quarkus, alike in every run, which is all a series needs). At the end the script prints every change point of the
series and whether each is where it should be. This is a benchmark: it prints, it asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAN_NAME = "changepoint-series"
SLOWED, KEPT = "go-reference", "quarkus"
HANDLERS = ROOT / "apps" / "go-reference" / "handlers.go"
LIST_FRUITS = "func (s *server) listFruits(w http.ResponseWriter, r *http.Request) {\n"


SHORT = {r"(?m)^warmup_max_s = .*$": "warmup_max_s = 20", r"(?m)^measure_max_s = .*$": "measure_max_s = 10",
         r"(?m)^open_loop_fraction = .*$": "open_loop_fraction = 0", r"(?m)^target = .*$": "target = 0",
         r"(?m)^budget_min = .*$": "budget_min = 0", r"(?m)^headline = .*$": "headline = []"}


def plan_text(short: bool = False) -> str:
    """quick.toml with its name and apps changed: the same durations, rounds and limits (`short`:
    the cuts in SHORT)."""
    text = (ROOT / "src" / "perflab" / "plans" / "quick.toml").read_text()
    text = re.sub(r'(?m)^name = "quick"$', f'name = "{PLAN_NAME}"', text)
    text = re.sub(r'(?m)^apps = \["all"\]$', f'apps = ["{SLOWED}", "{KEPT}"]', text)
    text = re.sub(r"(?m)^skip_apps = .*$", "", text)
    text = re.sub(r'(?m)^scenarios = .*$', 'scenarios = ["startup", "steady"]', text)
    if f'name = "{PLAN_NAME}"' not in text or f'"{SLOWED}", "{KEPT}"' not in text:
        sys.exit("quick.toml's name or apps line changed: update plan_text()")
    for pattern, line in (SHORT.items() if short else ()):
        text, found = re.subn(pattern, line, text)
        if not found:
            sys.exit(f"quick.toml has no line {pattern!r}: update SHORT")
    return text


def slowed_source(original: str, micros: int) -> str:
    """handlers.go with a busy spin of `micros` microseconds at the start of GET /fruits."""
    if LIST_FRUITS not in original:
        sys.exit(f"{HANDLERS}: listFruits not found: update LIST_FRUITS")
    spin = (f"\tfor start := time.Now(); time.Since(start) < {micros}*time.Microsecond; {{\n\t}}"
            "  // slowed on purpose by bench/changepoint_series.py\n")
    text = original.replace(LIST_FRUITS, LIST_FRUITS + spin)
    if not re.search(r'(?m)^\s*"time"$', text):
        text = text.replace("import (\n", 'import (\n\t"time"\n', 1)
    return text


def run_plan(plan_file: Path) -> None:
    cmd = [str(ROOT / "perflab"), "run", str(plan_file), "--yes"]
    print("$ " + " ".join(cmd), flush=True)
    code = subprocess.call(cmd, cwd=ROOT)
    if code != 0:
        sys.exit(f"perflab run exited {code}")


def report(first_slowed: str | None) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from perflab.migrate import open_store
    from perflab.report import history

    views = history.runs_of(open_store(), PLAN_NAME)
    found = history.changes(views)
    print(f"\n{len(views)} run(s) of {PLAN_NAME}, {len(history.series_groups(views))} series of one method "
          f"and machine; {len(found)} change point(s); the first slowed run: {first_slowed or '(none)'}")
    for c in found:
        expected = c.point.run_after == first_slowed and (f", {SLOWED}/" in c.figure or c.headline == "ratio")
        print(f"  {'expected' if expected else 'UNEXPECTED'}: {c.text()}")
    missing = [h for h in ("throughput",) if not any(c.headline == h and f", {SLOWED}/" in c.figure
                                                     and c.point.run_after == first_slowed for c in found)]
    if first_slowed and missing:
        print(f"  MISSED: no change point of {SLOWED}'s {', '.join(missing)} at {first_slowed}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs in all (default 10)")
    parser.add_argument("--slow-from", type=int, default=6, help="the first slowed run, counted from 0 (default 6)")
    parser.add_argument("--slow-us", type=int, default=50, help="CPU spun per GET /fruits when slowed (default 50 µs)")
    parser.add_argument("--short", action="store_true", help="about three minutes a run (see above)")
    parser.add_argument("--report-only", action="store_true", help="run nothing: list the stored series' change points")
    args = parser.parse_args(argv)
    if args.report_only:
        report(None)
        return 0
    original = HANDLERS.read_text()
    first_slowed = None
    with tempfile.TemporaryDirectory() as tmp:
        plan_file = Path(tmp) / f"{PLAN_NAME}.toml"
        plan_file.write_text(plan_text(args.short))
        try:
            for i in range(args.runs):
                slow = i >= args.slow_from
                HANDLERS.write_text(slowed_source(original, args.slow_us) if slow else original)
                print(f"\nrun {i + 1}/{args.runs}: {SLOWED} {'SLOWED' if slow else 'as it is'}", flush=True)
                before = _newest_run()
                run_plan(plan_file)
                if slow and first_slowed is None:
                    first_slowed = _newest_run()
                    if first_slowed == before:
                        sys.exit("the slowed run was not stored")
        finally:
            HANDLERS.write_text(original)
    report(first_slowed)
    return 0


def _newest_run() -> str | None:
    sys.path.insert(0, str(ROOT / "src"))
    from perflab.migrate import open_store

    rows = [r for r in open_store().runs() if r["plan_name"] == PLAN_NAME]
    return rows[0]["id"] if rows else None


if __name__ == "__main__":
    sys.exit(main())
