"""The environment a run's figures came from: CPU, cores, memory, kernel, OS, JDKs, framework and
driver versions, PostgreSQL, cgroup mode and the git commit. Captured once per run and stored
with it (as pyperf stores metadata with every result)."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from typing import Any

from perflab import jdks, postgres
from perflab.drivers import install as driver_install
from perflab.paths import REPO_ROOT


def _run(argv: list[str], timeout: float = 10) -> str:
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT)
        return (res.stdout + res.stderr).strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def memory_total_mb() -> int:
    try:
        with open("/proc/meminfo") as f:
            m = re.search(r"MemTotal:\s+(\d+) kB", f.read())
            return int(m.group(1)) // 1024 if m else 0
    except OSError:
        return 0


def os_release() -> str:
    try:
        with open("/etc/os-release") as f:
            m = re.search(r'^PRETTY_NAME="?([^"\n]+)', f.read(), re.M)
            return m.group(1) if m else ""
    except OSError:
        return ""


def git_state() -> dict[str, Any]:
    sha = _run(["git", "rev-parse", "HEAD"])
    dirty = bool(_run(["git", "status", "--porcelain", "--untracked-files=no"]))
    return {"sha": sha if re.fullmatch(r"[0-9a-f]{40}", sha) else None, "dirty": dirty}


def jdk_versions() -> dict[str, str]:
    found = {}
    for major in (11, 17, 21, 25):
        home = jdks.find_jdk(major)
        if home:
            found[str(major)] = f"{jdks.java_version(str(home))} ({home.name})"
    return found


def driver_versions() -> dict[str, str]:
    versions = {}
    if shutil.which("wrk"):
        m = re.search(r"wrk (\S+)", _run(["wrk", "-v"]))
        versions["wrk"] = m.group(1) if m else "unknown"
    try:
        oha = driver_install.oha_path() if hasattr(driver_install, "oha_path") else None
        if oha and os.path.exists(oha):
            versions["oha"] = _run([str(oha), "--version"]).split()[-1]
    except Exception:  # an unavailable optional driver is not an environment error
        pass
    return versions


def postgres_version() -> str:
    try:
        return _run([str(postgres.bin_dir() / "postgres"), "--version"])
    except Exception:
        return ""


def capture(frameworks: dict[str, str] | None = None, cgroup: str | None = None) -> dict[str, Any]:
    uname = platform.uname()
    return {
        "cpu_model": cpu_model(),
        "cpus_online": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)),
        "memory_mb": memory_total_mb(),
        "kernel": uname.release,
        "os": os_release(),
        "hostname": uname.node,
        "python": platform.python_version(),
        "jdks": jdk_versions(),
        "frameworks": frameworks or {},
        "drivers": driver_versions(),
        "postgres": postgres_version(),
        "cgroup": cgroup,
        "git": git_state(),
    }


def for_run(frameworks: dict[str, str], setup, topology, used_jdks: set[int]) -> dict[str, Any]:
    """The environment a run records (and its method is hashed from): the machine, the cgroup
    interface, the topology and the JDKs the run uses. `setup`: an isolate.CgroupSetup;
    `topology`: an isolate.Topology."""
    env = capture(frameworks=frameworks, cgroup=f"{setup.kind}: {setup.reason}" if not setup.usable else setup.kind)
    env["topology"] = topology.as_dict()
    env["jdks_used"] = {str(m): env.get("jdks", {}).get(str(m)) for m in sorted(used_jdks)}
    return env
