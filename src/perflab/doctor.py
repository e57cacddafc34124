"""`perflab doctor`: is everything the lab needs here? Each missing piece comes with what is wrong
and the exact fix; as root with apt available, missing Debian packages are installed, saying so."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable

from perflab import apps, isolate, jdks, postgres
from perflab.checks import Check
from perflab.devloop import needs
from perflab.drivers import install
from perflab.errors import LabError
from perflab.paths import MAVEN_WRAPPER


def _can_apt() -> bool:
    return os.geteuid() == 0 and shutil.which("apt-get") is not None


_apt_updated = False


def apt_install(packages: list[str], log: Callable[[str], None] = print) -> None:
    """Install Debian packages (root only), running `apt-get update` once first."""
    global _apt_updated
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if not _apt_updated:
        log("doctor: apt-get update")
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=600)
        _apt_updated = True
    log(f"doctor: installing Debian package(s): {' '.join(packages)}")
    res = subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages], env=env,
                         capture_output=True, text=True, timeout=1200)
    if res.returncode != 0:
        raise LabError(f"apt-get install {' '.join(packages)} failed", details=res.stdout[-1500:] + res.stderr[-1500:])


def _check_jdk(major: int, required: bool) -> Check:
    home = jdks.find_jdk(major)
    if home:
        # jstat reads a running app's GC and JIT counters (perflab.jvmstat); without it they are "not available".
        lacks = "".join(f", no {tool}" for tool in ("javac", "jstat") if not (home / "bin" / tool).exists())
        return Check(f"JDK {major}", True, f"{home} ({jdks.java_version(str(home))}{lacks})", required=required)
    if major == 17:
        return Check("JDK 17", False, "not found", "apt-get install openjdk-17-jdk-headless (or set PERFLAB_JDK17)",
                     required, apt="openjdk-17-jdk-headless")
    return Check(f"JDK {major}", False, "not found (modes that run on it are skipped)",
                 f"install a JDK {major} (e.g. Temurin) and set PERFLAB_JDK{major} to its home", required)


def _check_binary(name: str, label: str, apt: str, required: bool = True, version_args=("--version",)) -> Check:
    path = shutil.which(name)
    if not path:
        return Check(label, False, f"`{name}` not on PATH", f"apt-get install {apt}", required, apt=apt)
    try:
        out = subprocess.run([path, *version_args], capture_output=True, text=True, timeout=20)
        first = (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr).strip() else path
    except (OSError, subprocess.TimeoutExpired):
        first = path
    return Check(label, True, first, required=required)


def _check_postgres() -> Check:
    try:
        bindir = postgres.bin_dir()
    except LabError as exc:
        return Check("PostgreSQL server", False, exc.message, "apt-get install postgresql", apt="postgresql")
    return Check("PostgreSQL server", True, str(bindir))


def _check_maven() -> Check:
    wrapper = MAVEN_WRAPPER
    if not wrapper.exists():
        return Check("Maven", False, "apps/mvnw is missing", "restore apps/mvnw from the repository")
    dists = Path.home() / ".m2" / "wrapper" / "dists"
    have = sorted(p.name for p in dists.glob("apache-maven-*")) if dists.exists() else []
    detail = "Maven Wrapper apps/mvnw" + (f" ({', '.join(have)} downloaded)" if have else
                                            " (downloads Maven from Maven Central on first build)")
    return Check("Maven", True, detail)


def _check_cgroups() -> Check:
    info = isolate.detect()
    return Check("cgroup write access", bool(info.usable), str(info.description),
                 "run as root (or with a delegated cgroup v2 subtree); without it limits are recorded as not enforced",
                 required=False)


def _check_oha() -> Check:
    path = install.oha_path()
    if path.exists():
        return Check("oha (open-loop driver)", True, str(path), required=False)
    if install.find_cargo():
        return Check("oha (open-loop driver)", True, "not built yet: built once with cargo (~10 min) before the "
                     "first open-loop measurement", required=False)
    return Check("oha (open-loop driver)", False, "not built and no cargo to build it: latency and fixed-rate soak "
                 "scenarios cannot run", "install Rust (rustup) or apt-get install cargo", required=False)


def _check_native_image() -> Check:
    label = "native-image (the apps' native modes)"
    path = apps.native_image()
    if path is None:
        return Check(label, False, apps.native_image_missing(),
                     "install GraalVM or Mandrel (a JDK 25 release) and set GRAALVM_HOME to it, or put its "
                     "native-image on PATH", required=False)
    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=60)
        lines = (out.stdout or out.stderr).strip().splitlines()
        version = lines[0] if lines else "no version printed"
    except (OSError, subprocess.TimeoutExpired) as exc:
        version = f"--version failed: {exc}"
    return Check(label, True, f"{path} ({version})", required=False)


def run_checks() -> list[Check]:
    return [
        _check_jdk(17, True),
        _check_jdk(25, False),
        _check_maven(),
        _check_postgres(),
        _check_binary("wrk", "wrk (closed-loop load)", "wrk", version_args=("-v",)),
        _check_binary("go", "Go (the Go reference app)", "golang", required=False, version_args=("version",)),
        _check_oha(),
        _check_native_image(),
        _check_cgroups(),
        *_devloop_checks(),
    ]


def _devloop_checks() -> list[Check]:
    return needs.checks()


def doctor(install: bool = True, log: Callable[[str], None] = print) -> list[Check]:
    """Check, install what apt can fix (as root), check again."""
    checks = run_checks()
    missing_apt = sorted({c.apt for c in checks if not c.ok and c.apt and c.required})
    if missing_apt and install:
        if _can_apt():
            apt_install(missing_apt, log)
            checks = run_checks()
        else:
            log("doctor: not root (or no apt-get): cannot install " + " ".join(missing_apt) + " myself")
    return checks


def ensure(log: Callable[[str], None] = print) -> list[Check]:
    """doctor(), then an error naming every required piece still missing."""
    checks = doctor(install=True, log=log)
    bad = [c for c in checks if c.required and not c.ok]
    if bad:
        raise LabError("the lab cannot run here yet: " + "; ".join(f"{c.name}: {c.detail}" for c in bad),
                       fix="; ".join(c.fix for c in bad))
    return checks


def render(checks: list[Check]) -> str:
    lines = []
    for c in checks:
        mark = "ok  " if c.ok else ("MISSING" if c.required else "warn")
        lines.append(f"[{mark:<7}] {c.name}: {c.detail}")
        if not c.ok and c.fix:
            lines.append(f"          fix: {c.fix}")
    return "\n".join(lines)
