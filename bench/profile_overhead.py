"""What the profiler costs: the throughput and p99 of each app/mode at the quick plan's steady
point with profiling off (A) and on (B, `--profile`: JFR on JVM modes, pprof on the Go reference),
in alternating pairs of runs (bench/ab_runs.py). Profiling stays opt-in unless B/A of throughput
is within 3 % for every app.

    python3 bench/profile_overhead.py [--pairs 3] [--apps quarkus spring-boot] [--short]

A benchmark: it prints figures and their run ids and asserts nothing; --short only checks that
it runs (one launch of a few seconds: no figure from it means anything).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ab_runs import main, run  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(__doc__.split("\n\n")[0], "profiling off", "profiling on (--profile)",
                  lambda plan: run(plan, [], {}), lambda plan: run(plan, ["--profile"], {})))
