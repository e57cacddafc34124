"""`perflab ab`: two revisions of one app in one run. Each revision given is checked out into a git
worktree of its own under the work directory (kept, so its build is cached for the next run of the
same commit); the head, by default, is the app's folder as it stands (the working tree, changes
not yet committed included). The two run as APP@base and APP@head in balanced interleaved rounds on
a plan's settings (quick's by default), so a slow spell of the host lands on both and cancels in
head / base (perflab.report.ab_verdicts says what the run found)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from perflab import apps, plan as plans
from perflab.errors import LabError
from perflab.paths import work_dir
from perflab.settings import Plan


@dataclass(frozen=True)
class Revision:
    dir: Path    # the app's folder at this revision
    rev: str     # as given ("" for the working tree)
    sha: str
    dirty: bool = False

    def as_plan(self) -> dict:
        return {"dir": str(self.dir), "rev": self.rev, "sha": self.sha, "dirty": self.dirty}


def _git(repo: Path, *args: str) -> str:
    try:
        out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=300)
    except FileNotFoundError as exc:
        raise LabError("perflab ab needs git", fix="apt-get install git") from exc
    if out.returncode != 0:
        said = (out.stderr or out.stdout).strip().splitlines()
        raise LabError(f"git {' '.join(args)} in {repo}: {said[-1] if said else 'failed'}")
    return out.stdout.strip()


def repository(app_dir: Path) -> tuple[Path, Path]:
    """(the git repository's root, the app's folder inside it)."""
    if not (app_dir / "perflab.toml").is_file():
        raise LabError(f"{app_dir} holds no perflab.toml", fix="--app-dir names the folder of the app's perflab.toml")
    try:
        root = Path(_git(app_dir, "rev-parse", "--show-toplevel")).resolve()
    except LabError as exc:
        raise LabError(f"{app_dir} is not inside a git repository: perflab ab checks revisions out of one",
                       fix="git init and commit the app, or measure folders side by side with perflab run --app-dir") \
            from exc
    return root, app_dir.resolve().relative_to(root)


def commit_of(root: Path, rev: str) -> str:
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except LabError as exc:
        raise LabError(f"no commit {rev!r} in {root}", fix="git log --oneline names the commits; "
                       "a branch of a shallow clone may need git fetch first") from exc


def _worktree(root: Path, sha: str) -> Path:
    """A worktree of `root` at `sha`, detached, under the work directory; reused when it is there
    at that commit with nothing changed in it (its build output beside the sources stays)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", root.name) or "repo"
    dest = work_dir() / "ab" / f"{name}-{sha[:12]}"
    if dest.is_dir():
        try:
            if _git(dest, "rev-parse", "HEAD") == sha and not _git(dest, "status", "--porcelain",
                                                                   "--untracked-files=no"):
                return dest
        except LabError:
            pass
        shutil.rmtree(dest)  # a worktree left half made, or changed by hand: made anew
        _git(root, "worktree", "prune")
    dest.parent.mkdir(parents=True, exist_ok=True)
    _git(root, "worktree", "add", "--detach", "--force", str(dest), sha)
    return dest


def revision(app_dir: Path, rev: str | None) -> Revision:
    """The app at `rev` (checked out into a worktree), or as its folder stands when rev is None."""
    root, rel = repository(app_dir)
    if rev is None:
        sha = commit_of(root, "HEAD")
        dirty = bool(_git(root, "status", "--porcelain", "--", str(rel) or "."))
        return Revision(app_dir.resolve(), "", sha, dirty)
    sha = commit_of(root, rev)
    folder = _worktree(root, sha) / rel
    if not (folder / "perflab.toml").is_file():
        raise LabError(f"{rev} ({sha[:12]}) has no {rel / 'perflab.toml'}",
                       fix="the base must hold the app already: pick a later commit")
    return Revision(folder, rev, sha)


def app_folder(app_dir: str | None, app: str | None) -> Path:
    """--app-dir DIR, or --app NAME: one of the lab's own apps, in the repository that holds it."""
    if bool(app_dir) == bool(app):
        raise LabError("give exactly one of --app-dir DIR (your app's folder in a git repository) or --app NAME "
                       "(one of the lab's apps)")
    if app:
        return apps.get(app).dir
    folder = Path(app_dir).expanduser().resolve()
    if not folder.is_dir():
        raise LabError(f"--app-dir {app_dir}: no such folder")
    return folder


def make_plan(base_plan: str, base: Revision, head: Revision, target: float | None = None) -> Plan:
    """The base plan's settings with the two revisions in place of its apps; the headline is each
    mode's head / base (perflab.headline.version_pairs)."""
    loaded = plans.load(base_plan)
    data = dict(loaded.data)
    rounds = {**data["rounds"], "headline": []}
    if target is not None:
        if not 0 < target < 1:
            raise LabError(f"--target {100 * target:g}: give the half-width the ratio settles to in percent, "
                           "e.g. 5")
        rounds["target"] = target
    data.update({
        "name": f"ab-{loaded.name}", "apps": ["all"], "skip_apps": [], "app_dirs": [], "versions": {}, "aa": [],
        "ab": {"base": base.as_plan(), "head": head.as_plan()}, "rounds": rounds,
        "reductions": [*data["reductions"], "an A/B run: one app's two revisions (perflab ab) in place of the plan's "
                                            "apps, in interleaved rounds"],
    })
    return plans.validate(data, f"ab on {loaded.name}")
