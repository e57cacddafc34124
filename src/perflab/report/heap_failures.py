"""App/modes that failed under the heap flags the plan gave them: a finding of the run."""

from __future__ import annotations

from perflab import headline
from perflab.apps.launching import HEAP_OPTIONS
from perflab.results import RunView


HEAP_RAN_OUT = ("outofmemoryerror", "java heap space", "out of memory", "ran out of heap")


def heap_flags(view: RunView, target: str) -> list[str]:
    """The heap options the plan gave an app/mode (as perflab.apps.launching.mode_jvm_opts does):
    a native mode the plan's native_heap_opts, else the heap sizes of jvm_opts; a JVM mode the
    heap sizes of jvm_opts."""
    limits = view.plan.get("limits") or {}
    jvm = [o for o in limits.get("jvm_opts") or [] if o.startswith(HEAP_OPTIONS)]
    if not headline.runs_on_jvm(view, target):
        return list(limits.get("native_heap_opts") or []) or jvm
    return jvm


def heap_failures(view: RunView) -> list[str]:
    """Each app/mode that failed in a run whose plan sets its heap (LAB-2020's -Xmx64m, its native
    image's -Xms32m -Xmx64m -Xmn32m): a finding of the run, with the flags it ran with, its first
    failure's reason, and whether that reason says the heap ran out."""
    failed: dict[str, list[dict]] = {}
    for o in view.outcomes:
        if o["status"] == "failed":
            failed.setdefault(f"{o['app']}/{o['mode']}", []).append(o)
    out = []
    for target, said in failed.items():
        flags = heap_flags(view, target)
        if not flags:
            continue
        reasons = [o["reason"] for o in said if o["reason"]]
        ran_out = any(sign in r.lower() for r in reasons for sign in HEAP_RAN_OUT)
        where = "as a whole" if any(o["scenario"] == "run" for o in said) else \
            "in " + ", ".join(dict.fromkeys(o["scenario"] for o in said))
        out.append(f"FAILED under the plan's heap flags {' '.join(flags)} ({view.plan.get('name')}): {target} failed "
                   f"{where}" + (": its heap ran out" if ran_out else ": its reason does not name the heap")
                   + (f" ({reasons[0]})" if reasons else "")
                   + (f"; {len(said) - 1} more failure(s)" if len(said) > 1 else ""))
    return out
