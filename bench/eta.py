"""How well a run's time-left estimate held: reads the plain progress lines a run printed (a log of
`./perflab quick > quick.log`, or CI's output) and compares each line's "left ~..." with the time
that really remained, taken from the run's closing "done N/N steps in ..." line.

    .venv/bin/python bench/eta.py quick.log [--from 0.10] [--tolerance 0.25]

The promise: from 10 % of the run on, every estimate within +-25 % of the real remaining time.
Prints each judged line (elapsed, estimated, real, error) and how many held. This is a
benchmark: it prints figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

STATUS = re.compile(r"\(elapsed (?P<elapsed>[0-9hms]+), left ~(?P<left>[0-9hms]+)\)\s*$")
DONE = re.compile(r"^done \d+/\d+ steps in (?P<total>[0-9hms]+)\s*$")
DURATION = re.compile(r"^(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m)?(?:(?P<s>\d+)s)?$")


def seconds(text: str) -> float:
    """Seconds of a duration as the progress lines print it: 45s, 3m07s, 1h02m."""
    m = DURATION.match(text)
    if not text or m is None or not any(m.groups()):
        raise ValueError(f"not a duration: {text!r}")
    return 3600.0 * int(m["h"] or 0) + 60.0 * int(m["m"] or 0) + float(m["s"] or 0)


@dataclass(frozen=True)
class Estimate:
    elapsed_s: float
    left_s: float     # what the line said was left
    real_s: float     # what really was left

    @property
    def error(self) -> float:
        """Relative error of the estimate against the real remaining time (+: too long)."""
        return (self.left_s - self.real_s) / self.real_s if self.real_s > 0 else 0.0


def estimates(lines: list[str]) -> tuple[list[Estimate], float]:
    """Every status line's estimate against the real remaining time, and the run's total seconds.
    Raises ValueError when the log has no closing line (a run that did not finish)."""
    total = next((seconds(m["total"]) for m in map(DONE.match, lines) if m), None)
    if total is None:
        raise ValueError("no 'done N/N steps in ...' line: the run did not finish, or this is not its log")
    out = []
    for line in lines:
        m = STATUS.search(line)
        if m:
            elapsed = seconds(m["elapsed"])
            out.append(Estimate(elapsed, seconds(m["left"]), max(0.0, total - elapsed)))
    return out, total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", type=Path, help="the run's plain output (progress lines)")
    ap.add_argument("--from", dest="start", type=float, default=0.10, help="judge lines from this share of the run")
    ap.add_argument("--tolerance", type=float, default=0.25, help="an estimate holds within +- this")
    args = ap.parse_args(argv)
    try:
        found, total = estimates(args.log.read_text(errors="replace").splitlines())
    except (OSError, ValueError) as exc:
        print(f"eta: {exc}", file=sys.stderr)
        return 2
    judged = held = 0
    print(f"run of {total:.0f} s; lines from {args.start:.0%} of it on (elapsed, estimated left, real left, error):")
    for e in found:
        if e.elapsed_s < args.start * total:
            continue
        ok = abs(e.error) <= args.tolerance
        judged += 1
        held += ok
        mark = "ok" if ok else "MISS"
        print(f"  {e.elapsed_s:6.0f} s  {e.left_s:6.0f} s  {e.real_s:6.0f} s  {e.error:+7.1%}  {mark}")
    print(f"{held} of {judged} estimates within +-{args.tolerance:.0%} of the real remaining time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
