"""`perflab ab` on throw-away git repositories: revisions checked out into worktrees, the two sides
as variants of one app, and end to end a stand-in app whose head commit adds a known CPU cost per
request, both revisions built and launched in interleaved rounds through the runner, the head
judged slower and the gate failing with exit 1. Stand-in apps only: this tests the lab's A/B
machinery, not any framework."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from perflab import ab, rounds, store
from perflab.apps.versions import version_series
from perflab.errors import LabError
from perflab.paths import REPO_ROOT
from perflab.targets import revision_variants
from tests.conftest import needs_root, write_standin_app

pytestmark = [needs_root("needs root for cgroups and the DB user"), pytest.mark.standin]

PLAN = """
name = "ab-test"
apps = ["all"]
verify = false
scenarios = ["startup", "steady"]
repeats = 1
[limits]
memory_mb = 256
[startup]
runs = 1
timeout_s = 20
rest_s = 0
[steady]
launches = 2
startup_figures = true
points = [{ path = "/hello", connections = 2 }]
window = 3
warmup_max_s = 12
max_cv = 0.5
max_trend = 0.5
max_step = 0.5
max_jit_ms_per_s = 0
precision = 0.5
measure_max_s = 3
timeout_s = 20
[rounds]
seed = 3
target = 0.5
max_rounds = 2
"""


def _git(repo, *args) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                          capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path, workdir):
    """A repository with the app 'svc' in svc/: commit 1, then commit 2 changing its source."""
    root = tmp_path / "service"
    app = write_standin_app(root, "svc")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "one")
    (app / "src" / "version.txt").write_text("2\n")
    _git(root, "commit", "-q", "-am", "two")
    return root, app


def test_a_revision_is_checked_out_into_a_worktree_of_its_commit_and_reused(repo):
    root, app = repo
    first = _git(root, "rev-parse", "HEAD~1")
    base = ab.revision(app, "HEAD~1")
    assert base.sha == first and base.rev == "HEAD~1" and not base.dirty
    assert (base.dir / "src" / "version.txt").read_text() == "1\n"
    assert _git(base.dir, "rev-parse", "HEAD") == first
    (base.dir / "out").mkdir()  # a build's output beside the sources: the worktree is kept as it is
    again = ab.revision(app, first[:10])
    assert again.dir == base.dir and (again.dir / "out").is_dir()


def test_the_head_by_default_is_the_folder_as_it_stands_and_says_whether_it_changed(repo):
    root, app = repo
    head = ab.revision(app, None)
    assert head.dir == app.resolve() and head.sha == _git(root, "rev-parse", "HEAD") and not head.dirty
    (app / "src" / "version.txt").write_text("3\n")
    assert ab.revision(app, None).dirty


def test_bad_revisions_and_folders_are_refused_with_what_to_do(repo, tmp_path):
    root, app = repo
    with pytest.raises(LabError, match="no commit 'no-such-branch'"):
        ab.revision(app, "no-such-branch")
    outside = write_standin_app(tmp_path / "loose", "loose")
    with pytest.raises(LabError, match="not inside a git repository"):
        ab.revision(outside, "HEAD")
    (root / "later").mkdir()
    later = write_standin_app(root / "later", "later")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "three")
    with pytest.raises(LabError, match=r"has no later/later/perflab.toml"):
        ab.revision(later, "HEAD~1")
    with pytest.raises(LabError, match="exactly one of --app-dir"):
        ab.app_folder(str(app), "quarkus")


def test_the_two_sides_are_variants_of_one_app_with_their_own_builds_unless_one_commit(repo):
    _, app = repo
    base, head = ab.revision(app, "HEAD~1"), ab.revision(app, None)
    apart = revision_variants({"base": base.as_plan(), "head": head.as_plan()})
    assert [a.name for a in apart] == ["svc@base", "svc@head"]
    assert apart[0].build_key != apart[1].build_key and apart[0].dir != apart[1].dir
    same = ab.revision(app, "HEAD")
    one = revision_variants({"base": same.as_plan(), "head": same.as_plan()})
    assert one[0].dir == one[1].dir and one[0].build_key == one[1].build_key  # an A/A run builds once


def test_the_plan_runs_the_two_sides_in_place_of_its_apps_with_head_over_base_as_the_headline(repo):
    _, app = repo
    plan = ab.make_plan("quick", ab.revision(app, "HEAD~1"), ab.revision(app, None), target=0.05)
    assert plan.name == "ab-quick" and plan["rounds"]["target"] == 0.05 and plan["ab"]["base"]["rev"] == "HEAD~1"
    labels = ["svc@head/jvm", "svc@base/jvm"]
    assert version_series(labels) == [["svc@base/jvm", "svc@head/jvm"]]
    assert rounds.oldest_versions(labels) == {"svc@head/jvm": "svc@base/jvm", "svc@base/jvm": "svc@base/jvm"}
    with pytest.raises(LabError, match="--target"):
        ab.make_plan("quick", ab.revision(app, "HEAD~1"), ab.revision(app, None), target=5)


@pytest.fixture
def slowed_repo(tmp_path):
    """A git repository holding a stand-in app: commit 1 as it is, commit 2 with 3 ms of CPU per request."""
    repo = tmp_path / "service"
    app = write_standin_app(repo, "svc", delay=0.1)
    _git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text("out/\nbuild-count\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "the service")
    toml = app / "perflab.toml"
    toml.write_text(toml.read_text().replace('STANDIN_ALLOC_MB = "0"', 'STANDIN_ALLOC_MB = "0", STANDIN_BUSY_US = "3000"'))
    _git(repo, "commit", "-q", "-am", "a slower code path")
    return repo, app


def test_a_slowed_head_is_judged_slower_and_fails_the_gate(slowed_repo, tmp_path, workdir, database):
    repo, app = slowed_repo
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-m", "perflab", "db", "start", "--url", database[1].url], cwd=REPO_ROOT,
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    out = subprocess.run([sys.executable, "-m", "perflab", "ab", "--app-dir", str(app), "--base", "HEAD~1",
                          "--plan", str(plan), "--fail-above", "5", "--yes"],
                         cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    said = out.stdout + out.stderr
    assert out.returncode == 1, said
    assert "perflab ab: head / base" in said, said
    verdict = said[said.index("perflab ab: head / base"):]
    # 3 ms of CPU on a request that took a fraction of one: the whole interval far above 1
    cpu = next(line for line in verdict.splitlines() if "CPU per request" in line)
    assert "SLOWER" in cpu, verdict
    assert "CPU per request" in verdict[verdict.index("gate: FAILED"):], verdict
    throughput = next(line for line in verdict.splitlines() if "steady-state throughput" in line)
    assert "FASTER" not in throughput, verdict
    # both revisions were built, each in a worktree of its own commit, and measured under their roles
    st = store.Store()
    try:
        run = st.run("last")
        assert {f.app for f in st.figures(run["id"])} >= {"svc@base", "svc@head"}
        revisions = json.loads(run["plan_json"])["ab"]
    finally:
        st.db.close()
    first, second = (subprocess.run(["git", "-C", str(repo), "rev-parse", rev], capture_output=True, text=True,
                                    check=True).stdout.strip() for rev in ("HEAD~1", "HEAD"))
    assert (revisions["base"]["rev"], revisions["base"]["sha"]) == ("HEAD~1", first)
    assert (revisions["head"]["rev"], revisions["head"]["sha"], revisions["head"]["dirty"]) == ("", second, False)
    summary = (workdir / "reports" / run["id"] / "ab.md").read_text()
    assert "| svc/jvm | CPU per request at that throughput |" in summary and "| slower |" in summary
