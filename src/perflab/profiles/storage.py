"""Where profiles live: <work dir>/runs/<run>/profiles/<app>-<mode>/, one set of files a launch
and point (CPU and allocation folded stacks gzip'ed, a JSON of what was measured beside them, the
raw recording when the plan keeps it), registered in the store as kind "profile"; listed with
their sizes, bounded by the plan's profile.max_mb, removable with `perflab results prune RUN
--profiles` (the run's figures stay)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from perflab.errors import LabError
from perflab.store import Store

KIND = "profile"


def folder(store: Store, run_id: str, app: str, mode: str) -> Path:
    path = store.run_dir(run_id) / "profiles" / f"{app}-{mode}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def used_bytes(store: Store, run_id: str) -> int:
    root = store.path.parent / "runs" / run_id / "profiles"
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.exists() else 0


@dataclass(frozen=True)
class Stored:
    app: str
    mode: str
    path: Path
    size: int


def listed(store: Store, run_id: str) -> list[Stored]:
    out = []
    for row in store.files(run_id):
        if row["kind"] != KIND:
            continue
        path = store.path.parent / row["path"]
        out.append(Stored(row["app"], row["mode"], path, path.stat().st_size if path.exists() else 0))
    return out


def size_text(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} KB"


def describe(store: Store, run_id: str) -> list[str]:
    """Lines for `results show`: the run's profiles by app/mode with their sizes."""
    files = listed(store, run_id)
    if not files:
        return []
    by_target: dict[str, list[Stored]] = {}
    for f in files:
        by_target.setdefault(f"{f.app}/{f.mode}", []).append(f)
    total = sum(f.size for f in files)
    lines = [f"profiles: {len(files)} files, {size_text(total)} in {files[0].path.parent.parent} "
             f"(remove: perflab results prune {run_id} --profiles)"]
    for target, found in by_target.items():
        lines.append(f"  {target:<28} {len(found):>3} files {size_text(sum(f.size for f in found)):>9}")
    return lines


def prune(store: Store, run_id: str) -> tuple[int, int]:
    """Removes the run's profiles and their entries; returns (files, bytes) removed."""
    files = listed(store, run_id)
    size = used_bytes(store, run_id)
    shutil.rmtree(store.path.parent / "runs" / run_id / "profiles", ignore_errors=True)
    store.db.execute("DELETE FROM files WHERE run_id=? AND kind=?", (run_id, KIND))
    return len(files), size


def load_meta(path: Path) -> dict:
    return json.loads(path.read_text())


def cli_prune(store: Store, run_id: str, profiles: bool) -> int:
    """`perflab results prune RUN --profiles`."""
    if not profiles:
        raise LabError("results prune removes a run's profiles only, and says so: add --profiles")
    files, size = prune(store, run_id)
    print(f"run {run_id}: removed {files} profile files ({size_text(size)}); its figures are kept", flush=True)
    return 0
