"""Running a test plan through the runner against the test session's PostgreSQL (the `database`
fixture), as `./perflab run` would: the lab is pointed at that database first."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

from perflab import plan, runner, store
from perflab.paths import REPO_ROOT


def run_plan_on(database, plan_toml: str) -> tuple[store.Store, str]:
    """(the work directory's store, the run's id); the caller closes the store."""
    _, conn = database
    out = subprocess.run([sys.executable, "-m", "perflab", "db", "start", "--url", conn.url], cwd=REPO_ROOT,
                         env=dict(os.environ), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    run_id = runner.run_plan(plan.validate(tomllib.loads(plan_toml), "test"), say=lambda m: None)
    return store.Store(), run_id
