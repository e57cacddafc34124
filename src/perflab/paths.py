"""Where the lab keeps things: the repository, the work directory and the cache outside the repo."""

from __future__ import annotations

import os
from pathlib import Path

def _repo_root() -> Path:
    """The checkout holding apps/contract (the package may sit at the top or under src/)."""
    here = Path(__file__).resolve().parent
    for candidate in here.parents:
        if (candidate / "apps" / "contract").is_dir():
            return candidate
    return here.parent


REPO_ROOT = _repo_root()
CONTRACT_DIR = REPO_ROOT / "apps" / "contract"
MAVEN_WRAPPER = REPO_ROOT / "apps" / "mvnw"
# Maven reads it for builds under apps/: file locks in the local repository, so that two Maven processes
# (two tests, two labs, a build and the H2 fetch) may share ~/.m2 at once
MAVEN_CONFIG = REPO_ROOT / "apps" / ".mvn" / "maven.config"


def maven_config_args() -> list[str]:
    """apps/.mvn/maven.config's arguments, for a Maven run outside apps/ (where Maven does not find it)."""
    try:
        return MAVEN_CONFIG.read_text().split()
    except OSError:
        return []


def apps_dir() -> Path:
    """Where app descriptors are found (PERFLAB_APPS_DIR points the lab at other apps)."""
    return Path(os.environ.get("PERFLAB_APPS_DIR") or REPO_ROOT / "apps")


def build_dir() -> Path:
    """Build stamps belong to the checkout (the artifacts are in it), not to a work directory."""
    path = Path(os.environ.get("PERFLAB_BUILD_STAMPS") or REPO_ROOT / ".perflab" / "builds")
    path.mkdir(parents=True, exist_ok=True)
    return path


def work_dir() -> Path:
    """The lab's work directory (DB cluster, running servers, logs, build stamps, results).

    PERFLAB_WORKDIR overrides it so tests and parallel labs do not share state.
    """
    path = Path(os.environ.get("PERFLAB_WORKDIR") or REPO_ROOT / ".perflab")
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Tools built once and reused across clones (e.g. a cargo-built load driver)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    path = Path(base) / "perflab"
    path.mkdir(parents=True, exist_ok=True)
    return path
