"""A run's method hash: what must be equal for two runs to be compared."""

from __future__ import annotations

import hashlib
import json


# The rounds' stopping rule decides how many rounds a run buys, not how a launch is measured or
# paired: a quick run given a longer budget measures every launch as any quick run does, so its
# rounds pool with theirs (the prior, the answer across runs) and compare with them.
ROUNDS_NOT_METHOD = ("target", "min_rounds", "max_rounds", "budget_min")


def method_hash(plan: dict, environment: dict) -> str:
    """What must be equal for two runs to be compared: the plan (minus its name, description and
    reductions, and the rounds' stopping rule), the machine's CPU model and core count, and the
    versions of JDKs, frameworks and drivers."""
    # the cost model's assumptions and a plan's record of its own duration change no measurement
    relevant_plan = {k: v for k, v in plan.items()
                     if k not in ("name", "description", "reductions", "measured", "cost", "ab")}
    if (plan.get("ab") or {}).get("base", {}).get("dir"):
        # an A/B run measures two commits: only runs of the same two pool their spread or count as
        # repeats of it (where the worktrees lie and how a revision was named change nothing)
        relevant_plan["ab"] = {role: {k: side.get(k) for k in ("sha", "dirty")} for role, side in plan["ab"].items()}
    if isinstance(plan.get("rounds"), dict):
        relevant_plan["rounds"] = {k: v for k, v in plan["rounds"].items() if k not in ROUNDS_NOT_METHOD}
    if plan.get("placement", {}).get("postgres_url"):
        # a given database is part of the method; its address and credentials are not (a private
        # server gets a new port and password each time)
        relevant_plan["placement"] = {**plan["placement"], "postgres_url": "given"}
    relevant_env = {k: environment.get(k) for k in ("cpu_model", "cpus_online", "jdks", "frameworks", "drivers",
                                                    "cgroup", "postgres")}
    if "jdks_used" in environment:  # the JDKs the run used, not every JDK the machine has
        relevant_env["jdks"] = environment["jdks_used"]
    blob = json.dumps({"plan": relevant_plan, "env": relevant_env}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
