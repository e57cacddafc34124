"""Find the JDKs the apps' modes ask for (17, 25, ...): JAVA_HOME_<N> or PERFLAB_JDK<N> first,
then the usual install locations."""

from __future__ import annotations

import glob
import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path

from perflab.errors import LabError

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


def find_jdk(major: int) -> Path | None:
    """A JDK home of the given major version with both java and javac, or None."""
    for var in (f"PERFLAB_JDK{major}", f"JAVA_HOME_{major}"):
        value = os.environ.get(var)
        if value and (Path(value) / "bin" / "java").exists():
            return Path(value)
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


def require_jdk(major: int) -> Path:
    home = find_jdk(major)
    if home is None:
        fix = {
            17: "apt-get install openjdk-17-jdk-headless, or set PERFLAB_JDK17 to a JDK 17 home",
        }.get(major, f"install a JDK {major} and set PERFLAB_JDK{major} to its home")
        raise LabError(f"no JDK {major} found (looked at PERFLAB_JDK{major}, JAVA_HOME_{major}, /usr/lib/jvm, /opt)", fix=fix)
    return home
