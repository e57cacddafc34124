"""The Go reference's own tests (`go test ./...` in apps/go-reference): its handlers and its
configuration, as the app's authors check them, run with the lab's suite."""

from __future__ import annotations

import shutil
import subprocess

from perflab import apps
from perflab.apps import build_env
from tests.conftest import require


def test_the_go_reference_passes_its_own_tests():
    require(shutil.which("go") is not None, "needs Go (apt-get install golang-go, or Go from go.dev)")
    app = apps.get("go-reference")
    done = subprocess.run(["go", "test", "-count=1", "./..."], cwd=app.dir, env=build_env(app),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"go test ./... failed:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
    assert "ok" in done.stdout, done.stdout
