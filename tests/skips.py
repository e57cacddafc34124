"""The run's skipped tests by reason, each with what makes them run: the table the suite ends with
(tests/conftest.py), so that "N skipped" in the summary line says which tests, why, and the fix."""

from __future__ import annotations

import re
from collections import Counter

# (a pattern of the reason, what makes such tests run): the first that matches gives the fix
HOW = [
    (r"stud(y|ies)'? texts", "put the studies' texts at ../shared/studies beside the clone, or set PERFLAB_STUDIES"),
    (r"\broot\b", "run the suite as root"),
    (r"cgroup", "run as root on a machine with cgroup v2 and its cpu and memory controllers"),
    (r"\bJDK", "install a JDK 17 (apt-get install openjdk-17-jdk-headless), or set PERFLAB_JDK17 / PERFLAB_JDK25"),
    (r"\bGo\b", "install Go (apt-get install golang-go)"),
    (r"\bwrk\b", "install wrk (apt-get install wrk; ./perflab doctor does as root)"),
    (r"\boha\b", "let oha build once: cargo (rustup) and network to crates.io"),
    (r"chromium", "apt-get install chromium, or run as root so the test installs it"),
    (r"could not import|test extras", "install the test extras: pip install -e '.[test]' (./perflab does)"),
]
UNKNOWN = "what the reason names is missing here; under CI=true such a test fails instead"


def reason(report) -> str:
    """A skipped test's reason, as pytest gives it in the report's (path, line, message)."""
    longrepr = report.longrepr
    message = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return message.removeprefix("Skipped: ")


def how(why: str) -> str:
    return next((fix for pattern, fix in HOW if re.search(pattern, why, re.IGNORECASE)), UNKNOWN)


def table(reports) -> list[tuple[int, str, str]]:
    """(count, reason, how to make them run) per reason, the most frequent first."""
    counts = Counter(reason(r) for r in reports)
    return [(n, why, how(why)) for why, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def lines(rows: list[tuple[int, str, str]]) -> list[str]:
    width = max(len(str(n)) for n, _, _ in rows)
    return [f"{n:>{width}}  {why}\n{'':>{width}}  to run them: {fix}" for n, why, fix in rows]
