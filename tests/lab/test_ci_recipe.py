"""The pipeline recipes of examples/ci: each valid by its CI's own schema (tests/support/ci_schemas),
and the GitHub workflow's shell steps, read from the YAML and run with bash as the runner would, on a
throw-away repository holding the Go reference whose second commit adds ~2 ms of CPU to each request
of the point measured: the gate step exits 1, the job summary holds the verdict table and the
results file is exported. Its `uses:` steps (checkouts, caches, uploads) are not run: in place of
the checkout of perflab the test puts the repository under test."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from perflab.paths import REPO_ROOT
from tests.conftest import SUPPORT, needs_root, needs_tool
from tests.lab.test_ab import PLAN as AB_PLAN

EXAMPLES = REPO_ROOT / "examples" / "ci"
SCHEMAS = SUPPORT / "ci_schemas"

# the `uses:` steps the test leaves out, in the workflow's order: a new one must be looked at here
NOT_RUN = ["actions/checkout", "actions/checkout", "actions/setup-python", "actions/cache", "actions/upload-artifact"]
# the job's env that the run blocks read: the test gives each a value of its own
JOB_ENV = {"APP_DIR", "FAIL_ABOVE", "PERFLAB_PLAN", "BASE_REF", "PERFLAB_DIR", "PERFLAB_WORKDIR"}

# test_ab's short run of quick's kind (start-up, then steady launches in interleaved rounds), on the
# Go reference's database-backed point
PLAN = AB_PLAN.replace('path = "/hello"', 'path = "/fruits"')

HANDLER = "func (s *server) listFruits(w http.ResponseWriter, r *http.Request) {\n"
SLOWER = HANDLER + "\tfor end := time.Now().Add(2 * time.Millisecond); time.Now().Before(end); {\n\t}\n"


class _Loader(yaml.SafeLoader):
    """YAML 1.2's booleans (true/false only), as GitHub and GitLab read them: `on:` stays a string."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                              list("tTfF"))


def _load(name: str) -> dict:
    return yaml.load((EXAMPLES / name).read_text(), Loader=_Loader)


def _errors(document: dict, schema_file: str) -> list[str]:
    schema = json.loads((SCHEMAS / schema_file).read_text())
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in validator.iter_errors(document)]


@pytest.mark.standin  # reads two files, starts nothing
def test_the_github_workflow_is_valid_by_the_github_workflow_schema():
    workflow = _load("github-actions.yml")
    assert _errors(workflow, "github-workflow.json") == []
    assert "pull_request" in workflow["on"]
    assert JOB_ENV <= set(workflow["jobs"]["ab"]["env"])


@pytest.mark.standin  # reads two files, starts nothing
def test_the_gitlab_pipeline_is_valid_by_gitlab_s_ci_schema():
    pipeline = _load("gitlab-ci.yml")
    assert _errors(pipeline, "gitlab-ci.json") == []
    job = pipeline["perflab-ab"]
    assert job["rules"][0]["if"] == '$CI_PIPELINE_SOURCE == "merge_request_event"'
    assert job["artifacts"]["when"] == "always"
    assert "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME" in job["variables"]["BASE_REF"]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                          capture_output=True, text=True).stdout.strip()


@pytest.fixture
def pull_request(tmp_path) -> Path:
    """A clone as actions/checkout leaves it for a pull request: the Go reference in service/,
    origin/main at its first commit, the head one commit on with ~2 ms of CPU per /fruits request."""
    repo = tmp_path / "workspace"
    shutil.copytree(REPO_ROOT / "apps" / "go-reference", repo / "service", ignore=shutil.ignore_patterns("go-reference"))
    (repo / ".gitignore").write_text("/service/go-reference\n")  # the build's output
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "the service")
    _git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    handlers = repo / "service" / "handlers.go"
    assert HANDLER in handlers.read_text()
    handlers.write_text(handlers.read_text().replace(HANDLER, SLOWER))
    _git(repo, "commit", "-q", "-am", "a slower listing of fruits")
    return repo


def _script(step: dict, env: dict[str, str]) -> str:
    """A run block with its `${{ }}` expressions replaced as the runner would: `env.NAME` by the value
    the test gives NAME; anything else is beyond this test."""
    def value(match: re.Match) -> str:
        name = re.fullmatch(r"env\.([A-Za-z_][A-Za-z0-9_]*)", match.group(1))
        assert name and name.group(1) in env, f"step {step.get('name')!r}: no value for ${{{{ {match.group(1)} }}}}"
        return env[name.group(1)]
    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", value, step["run"])


def _run_steps(steps: list[dict], env: dict[str, str], cwd: Path, scripts: Path) -> tuple[dict[str, int], list[str]]:
    """Each run step in order under `bash -e` (the runner's default shell); after a failure only the
    steps with `if: always()`, as the runner does. (exit codes by step name, the `uses:` steps left out)"""
    codes: dict[str, int] = {}
    skipped: list[str] = []
    failed = False
    for i, step in enumerate(steps):
        if "uses" in step:
            skipped.append(step["uses"].split("@")[0])
            continue
        condition = step.get("if")
        assert condition in (None, "always()"), f"step {step.get('name')!r}: `if: {condition}` is beyond this test"
        if failed and condition is None:
            continue
        script = scripts / f"step-{i}.sh"
        script.write_text(_script(step, env))
        done = subprocess.run(["bash", "-e", str(script)], cwd=cwd, env={**os.environ, **env}, capture_output=True,
                              text=True, timeout=1200)
        print(f"--- step {step['name']!r}: exit {done.returncode}\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}")
        codes[step["name"]] = done.returncode
        failed = failed or done.returncode != 0
    return codes, skipped


@pytest.mark.slow  # builds the Go reference twice (the apps group: not a standin)
@needs_root("needs root for cgroups and the DB user")
@needs_tool("go", "needs Go to build the Go reference")
def test_the_workflow_s_steps_fail_the_gate_on_a_slower_head_and_keep_its_summary_and_results(
        pull_request, tmp_path, workdir, database):
    job = _load("github-actions.yml")["jobs"]["ab"]
    assert set(job["env"]) == JOB_ENV, "a run block may read a variable this test does not set"
    out = subprocess.run([sys.executable, "-m", "perflab", "db", "start", "--url", database[1].url], cwd=REPO_ROOT,
                         env=dict(os.environ), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert 'path = "/fruits"' in PLAN, "test_ab's plan changed its point"
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    # in the checkout's place, the repository under test, run by this interpreter (its ./perflab
    # would make a virtualenv of its own first)
    lab = tmp_path / "perflab-checkout"
    lab.mkdir()
    (lab / "perflab").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m perflab "$@"\n')
    (lab / "perflab").chmod(0o755)
    summary = tmp_path / "step-summary.md"
    env = {"APP_DIR": "service", "FAIL_ABOVE": "5", "PERFLAB_PLAN": str(plan), "BASE_REF": "main",
           "PERFLAB_DIR": str(lab), "PERFLAB_WORKDIR": str(workdir), "GITHUB_STEP_SUMMARY": str(summary)}
    scripts = tmp_path / "steps"
    scripts.mkdir()
    codes, skipped = _run_steps(job["steps"], env, pull_request, scripts)
    print(f"not run (uses:): {', '.join(skipped)}")
    assert skipped == NOT_RUN
    assert codes == {"perflab ab (the gate)": 1, "Verdicts to the job summary": 0, "Export the run's results": 0}
    page = summary.read_text()
    assert "| app/mode | figure | head / base | 95 % interval | rounds | verdict |" in page, page
    cpu = next(line for line in page.splitlines() if "| go-reference/native | CPU per request" in line)
    assert cpu.endswith("| slower |"), page
    assert "gate: FAILED" in page, page
    exported = json.loads((workdir / "results.json").read_text())
    assert exported["format"] == "perflab-results"
    assert len(exported["runs"]) == 1
