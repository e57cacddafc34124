"""What counting SQL statements costs: pg_stat_statements is loaded into the lab's private
PostgreSQL for every run, and its bookkeeping takes database CPU on the CPU the database shares
with the load driver. The throughput and p99 of each app/mode at the quick plan's steady point
with it loaded (A) and not (B, PERFLAB_STATEMENT_STATS=off), in alternating pairs of runs
(bench/ab_runs.py). Above 2 % of any app's throughput, statement counting belongs in the
profiling pass only.

    python3 bench/statement_stats_cost.py [--pairs 3] [--apps quarkus spring-boot] [--short]

A benchmark: it prints figures and their run ids and asserts nothing; --short only checks that
it runs (one launch of a few seconds: no figure from it means anything).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ab_runs import main, run  # noqa: E402

from perflab.postgres import STATEMENT_STATS_ENV  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(__doc__.split("\n\n")[0], "pg_stat_statements loaded", "pg_stat_statements off",
                  lambda plan: run(plan, [], {STATEMENT_STATS_ENV: "on"}),
                  lambda plan: run(plan, [], {STATEMENT_STATS_ENV: "off"})))
