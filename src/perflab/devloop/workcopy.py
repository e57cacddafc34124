"""A throw-away copy of an app's folder (plus the Maven wrapper) under the lab's work directory:
every edit goes there, never to the tracked sources, and the copy is removed on every way out
(Ctrl-C and SIGTERM included; a copy left by kill -9 is removed by the next devloop)."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import time
from pathlib import Path

from perflab import procs, signals
from perflab.apps import App
from perflab.errors import LabError
from perflab.paths import MAVEN_WRAPPER, work_dir

_LEAVE_OUT = {"target", ".git", "__pycache__", ".perflab", "node_modules"}


def copies_dir() -> Path:
    return work_dir() / "devloop"


def remove_stale() -> list[Path]:
    """Working copies left by a killed run (and the dev loops they ran)."""
    return procs.remove_orphans(copies_dir())


class WorkingCopy:
    """`with WorkingCopy(app) as wc:` -> wc.app builds and runs from the copy; wc.edit(...) saves."""

    def __init__(self, app: App):
        self.source = app
        self.root: Path | None = None
        self.app: App = app
        self._originals: dict[str, str] = {}

    def __enter__(self) -> "WorkingCopy":
        remove_stale()
        copies_dir().mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix=f"{self.source.name}-pid{os.getpid()}-", dir=copies_dir()))
        try:
            artifact = self.source.artifact_path.resolve()
            shutil.copytree(self.source.dir, self.root / self.source.name, symlinks=True,
                            ignore=lambda d, names: [n for n in names if n in _LEAVE_OUT
                                                     or (Path(d) / n).resolve() == artifact])
            shutil.copy2(MAVEN_WRAPPER, self.root / MAVEN_WRAPPER.name)
            if (MAVEN_WRAPPER.parent / ".mvn").is_dir():
                shutil.copytree(MAVEN_WRAPPER.parent / ".mvn", self.root / ".mvn")
        except BaseException:
            self._remove()
            raise
        self.app = dataclasses.replace(self.source, dir=self.root / self.source.name)
        return self

    def __exit__(self, *exc) -> None:
        self._remove()

    def _remove(self) -> None:
        with signals.shielded():
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)

    def remember_child(self, pid: int) -> None:
        """The loop running from this copy, so a later run can stop it if this one is killed."""
        assert self.root is not None
        (self.root / procs.CHILD_PID).write_text(str(pid))

    @property
    def mvnw(self) -> Path:
        assert self.root is not None
        return self.root / MAVEN_WRAPPER.name

    def write(self, rel_path: str, content: str) -> int:
        """Save a whole file (e.g. a new one); the monotonic time (ns) at which the save completed."""
        path = self.app.dir / rel_path
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        return time.monotonic_ns()

    def edit(self, rel_path: str, old: str, new: str) -> int:
        """Save the file with `old` (as in the tracked version) replaced by `new`; returns the
        monotonic time (ns) at which the save completed."""
        path = self.app.dir / rel_path
        if rel_path not in self._originals:
            self._originals[rel_path] = path.read_text()
        original = self._originals[rel_path]
        if original.count(old) != 1:
            raise LabError(f"devloop: the edit of {self.source.name}/{rel_path} expects {old!r} exactly once, "
                           f"found {original.count(old)} times", fix="update the edit in perflab.devloop.edits")
        return self.write(rel_path, original.replace(old, new))
