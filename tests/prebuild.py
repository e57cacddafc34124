"""One-time builds that the slower tiers wait for, started in the background when a test session
begins so that they overlap with the tests before them: oha (cargo, minutes) for the lab tier; the
Kubernetes control plane, the real node's binaries and Knative (Go, tens of minutes on a machine
that has built nothing) for the kube tier, which runs last.

Each build takes the same lock as the fixture that needs it, and makes the same files: a test that
gets there first waits for the background build instead of starting a second one, and a background
build that fails leaves the fixture to build again and report why. Each job runs niced in a process,
session and autogroup of its own with the group's nice raised too (with autogroups, nice only orders
processes within one group), so the tests' own processes come first on the CPUs. The jobs run side
by side from the start, oha ahead of the Kubernetes binaries (NICE): the tests wait for oha within
minutes, for the cluster only at the end.

    python -m tests.prebuild oha kube     # what the session start does, in the foreground
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from tests import lanes

ROOT = Path(__file__).resolve().parent.parent
JOBS = ("oha", "kube")  # in the order the tiers need them
NICE = {"oha": 10, "kube": 19}  # oha is wanted first: it gets about seven times the cluster's share
OFF = "PERFLAB_PREBUILD"  # "0": no background builds (each fixture builds when first needed)


def wanted(test_paths: Iterable[Path]) -> list[str]:
    """The builds a session of these test files will wait for: oha for any test outside the unit
    tier, the Kubernetes binaries for any test of the kube tier."""
    tiers = {lanes.tier(path) for path in test_paths} - {""}
    jobs = []
    if tiers - {"unit"}:
        jobs.append("oha")
    if "kube" in tiers:
        jobs.append("kube")
    return jobs


def missing(jobs: Iterable[str]) -> list[str]:
    """The jobs whose outputs are not there yet (a machine that built them before has none)."""
    from perflab.drivers.install import cargo_tool_path
    from perflab.drivers.oha import OHA_VERSION
    from tools.kubeenv import build, knative

    done = {"oha": lambda: cargo_tool_path("oha", OHA_VERSION).is_file(),
            "kube": lambda: build.built() and build.node_built() and knative.built()}
    return [job for job in jobs if not done[job]()]


def start(jobs: list[str], log_path: Path) -> list[subprocess.Popen]:
    """A background process for each job not built yet (none when turned off)."""
    if os.environ.get(OFF, "").strip() == "0":
        return []
    log_path.parent.mkdir(parents=True, exist_ok=True)
    return [_start_one(job, log_path) for job in missing(jobs)]


def _start_one(job: str, log_path: Path) -> subprocess.Popen:
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(["nice", "-n", str(NICE[job]), sys.executable, "-m", "tests.prebuild", job], cwd=ROOT,
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    try:  # a session of its own is an autogroup of its own: lower the group's weight too
        Path(f"/proc/{proc.pid}/autogroup").write_text(str(NICE[job]))
    except OSError:
        pass  # no autogroups (or not allowed): nice alone then orders it after the tests
    return proc


def stop(procs: list[subprocess.Popen] | None) -> None:
    """End the background builds still going when the session ends (a failed -x run, say); a build
    cut short leaves no binary behind, so the next session builds it again."""
    from perflab import procs as lab_procs

    for proc in procs or []:
        if proc.poll() is None:
            lab_procs.stop_group(proc.pid, timeout=10, proc=proc)


def build(job: str) -> None:
    if job == "oha":
        from perflab.drivers.oha import ensure_oha

        ensure_oha()
    elif job == "kube":
        from tools.kubeenv import build as kube_build, knative

        kube_build.build_node()
        knative.build_binaries()
    else:
        raise SystemExit(f"unknown job {job!r}: one of {', '.join(JOBS)}")


def main(argv: list[str]) -> int:
    failed = 0
    for job in argv or JOBS:
        try:
            build(job)
        except Exception as exc:  # the fixture that needs it builds again and says why
            print(f"prebuild: {job} failed: {exc}", flush=True)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
