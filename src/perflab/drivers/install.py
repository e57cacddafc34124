"""Installing load drivers once: Debian packages with apt-get, Rust tools with cargo.

Things that are built or downloaded live outside the repository, under
``${XDG_CACHE_HOME:-~/.cache}/perflab/``, so a build happens once per machine and is reused.
Every step that changes the machine says what it does on stderr before doing it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterator

Log = Callable[[str], None]

OHA_VERSION = "1.16.0"  # the pinned oha build: drivers.oha runs it, oha_path() says where it is


class DriverUnavailable(RuntimeError):
    """A load driver is missing and could not be installed; the message says how to fix it."""


def say(message: str) -> None:
    """Default progress output: one prefixed line on stderr (stdout may carry results)."""
    print(f"perflab: {message}", file=sys.stderr, flush=True)


def cache_dir() -> Path:
    """The per-user cache for built tools: ``${XDG_CACHE_HOME:-~/.cache}/perflab``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "perflab"


@contextlib.contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Serialise installs across processes (parallel test runs must not build twice)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_apt_binary(binary: str, package: str, log: Log = say) -> Path:
    """Return the path of ``binary``, installing Debian's ``package`` with apt-get if missing.

    Installs only when running as root with apt-get present; otherwise raises DriverUnavailable
    with the command that fixes it. Idempotent: an installed binary is returned untouched.
    """
    found = shutil.which(binary)
    if found:
        return Path(found)
    fix = f"install it with: sudo apt-get install -y {package}"
    apt = shutil.which("apt-get")
    if apt is None:
        raise DriverUnavailable(f"{binary} is not installed and apt-get is not available; {fix} "
                                f"(or your system's equivalent)")
    if os.geteuid() != 0:
        raise DriverUnavailable(f"{binary} is not installed and perflab is not root; {fix}")
    with exclusive_lock(cache_dir() / "locks" / f"apt-{package}.lock"):
        found = shutil.which(binary)
        if found:
            return Path(found)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        install = [apt, "install", "-y", "--no-install-recommends", package]
        log(f"{binary} is missing: installing Debian package '{package}' with apt-get")
        done = subprocess.run(install, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            # A fresh machine may have no package lists yet: refresh them once and retry.
            log("apt-get install failed; running apt-get update and retrying")
            subprocess.run([apt, "update"], env=env, capture_output=True, text=True)
            done = subprocess.run(install, env=env, capture_output=True, text=True)
        found = shutil.which(binary)
        if done.returncode != 0 or not found:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise DriverUnavailable(f"apt-get could not install {package}: "
                                    f"{' | '.join(tail)}; {fix}")
        log(f"installed {package}: {found}")
        return Path(found)


def find_cargo() -> Path | None:
    """cargo on PATH, or in rustup's default place (often not on PATH in non-login shells)."""
    found = shutil.which("cargo")
    if found:
        return Path(found)
    candidate = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo") / "bin" / "cargo"
    return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None


def cargo_tool_path(crate: str, version: str, binary: str | None = None) -> Path:
    """Where ``cargo install --root`` puts a pinned crate's binary inside the cache."""
    return cache_dir() / crate / version / "bin" / (binary or crate)


def oha_path() -> Path:
    """Where the cached oha build lives, built or not (see drivers.oha.ensure_oha)."""
    return cargo_tool_path("oha", OHA_VERSION)


def ensure_cargo_binary(crate: str, version: str, *, binary: str | None = None,
                        expected_minutes: int = 10, log: Log = say) -> Path:
    """Return a cached, pinned build of ``crate``; build it once with cargo if absent.

    ``cargo install <crate> --version <version> --locked --root <cache>/<crate>/<version>``:
    --locked uses the crate's own lock file, so the build is the one its authors tested.
    """
    target = cargo_tool_path(crate, version, binary)
    if target.is_file():
        return target
    cargo = find_cargo()
    if cargo is None:
        raise DriverUnavailable(
            f"{crate} {version} is not built and cargo is not available; install Rust "
            f"(https://rustup.rs) or your distribution's cargo, then run: cargo install {crate} "
            f"--version {version} --locked --root {target.parent.parent}")
    root = target.parent.parent
    with exclusive_lock(cache_dir() / "locks" / f"cargo-{crate}-{version}.lock"):
        if target.is_file():  # another process built it while we waited for the lock
            return target
        log(f"building {crate} {version} with cargo into {root} "
            f"(one time, about {expected_minutes} min; later runs reuse it)")
        command = [str(cargo), "install", crate, "--version", version, "--locked",
                   "--root", str(root)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0 or not target.is_file():
            tail = done.stderr.strip().splitlines()[-5:]
            raise DriverUnavailable(f"building {crate} {version} failed: {' | '.join(tail)}; "
                                    f"try by hand: {' '.join(command)}")
        log(f"built {target}")
        return target
