"""The unoptimized control plane's compiler flags hold a space: Go must read them from GOFLAGS as one
setting and hand them to every compile (tools/kubeenv/build.py)."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import needs_tool
from tools.kubeenv import build

pytestmark = pytest.mark.standin


@needs_tool("go", "the control plane is compiled with Go")
def test_go_reads_the_unoptimized_flags_as_one_compiler_setting(monkeypatch, tmp_path):
    monkeypatch.setenv(build.FLAVOUR_ENV, "unoptimized")
    (tmp_path / "go.mod").write_text("module example.test/tiny\n\ngo 1.21\n")
    (tmp_path / "main.go").write_text("package main\n\nfunc main() {}\n")
    done = subprocess.run(["go", "build", "-n", "."], cwd=tmp_path, env=dict(build.go_env(), GOCACHE=str(tmp_path / "cache")),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    compiles = [line for line in done.stderr.splitlines() if "/compile " in line and " -p main " in line]
    assert compiles and all(" -N -l" in line for line in compiles)
