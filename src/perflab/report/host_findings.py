"""How fast the host ran during a run: the canary's integer chain and its shared cache's pointer chase."""

from __future__ import annotations

import statistics

from perflab.analysis import host_speed
from perflab.results import RunView


def host_line(view: RunView) -> str:
    """How far the canary's integer chain moved over the run, on the app's CPU and on the load
    side's, and how many readings were slow enough to flag their launches host-slow."""
    slow_share = (view.plan.get("rounds") or {}).get("host_slow", 0.05)
    parts, slow = [], 0
    for metric, where in (("app_cpu_ms", "app's CPU"), ("load_cpu_ms", "load side's CPU")):
        values = [v for c in view.find("canary", metric) for v in c.values]
        if len(values) < 2:
            continue
        middle = statistics.median(values)
        slow += sum(1 for v in values if v > middle * (1 + slow_share))
        parts.append(f"{where} median {middle:.2f} ms, {min(values) / middle - 1:+.1%} to "
                     f"{max(values) / middle - 1:+.1%} ({len(values)} readings)")
    if not parts:
        return "host speed: not measured (no canary readings)" if view.rounds else ""
    return (f"host speed (the canary's integer chain before and after each launch): {'; '.join(parts)}; "
            f"{slow} reading(s) more than {slow_share:.0%} slow"
            + ("" if not slow else " (their launches are flagged host-slow)"))


def cache_lines(view: RunView) -> tuple[str, str]:
    """The canary's pointer chase over the run (the shared cache, which neighbours on the host
    contend for and the integer chain does not see) beside the earlier runs of its plan, method and
    machine, as stored with the run; and, when this run's median lies beyond every earlier run's on
    some side, what that means for comparing its figures with theirs (else "")."""
    earlier = ((view.rounds or {}).get("history") or {}).get("hosts") or {}
    medians = view.canary_medians()
    parts, beyond = [], []
    for metric, where in host_speed.CACHE_SIDES:
        if sum(len(c.values) for c in view.find("canary", metric)) < 2:
            continue
        now = medians[metric]
        text = f"{where} median {now:.1f} ms"
        past = [h[metric] for h in earlier.values() if h.get(metric)]
        if past:
            text += f" (earlier runs here {min(past):.1f}-{max(past):.1f} ms)"
            moved = host_speed.against_earlier(now, past)
            if moved:
                beyond.append(f"{abs(moved):.0%} {'slower' if moved > 0 else 'faster'} on the {where}")
        parts.append(text)
    if not parts:
        return "", ""
    line = ("shared cache (the canary's pointer chase, which the host's neighbours contend for and the integer chain "
            f"does not see): {'; '.join(parts)}")
    if not beyond:
        return line, ""
    runs = len([h for h in earlier.values() if h])
    differs = (f"the host's shared cache was in another state than in every one of the {runs} earlier run(s) here "
               f"({', '.join(beyond)} than the nearest of them): memory-bound work (the JIT's compiled code, the "
               f"database, the load driver) ran at another speed, so this run's req/s and latencies compare with "
               f"theirs only as ratios of apps measured in the same rounds")
    return line + "; " + differs, differs
