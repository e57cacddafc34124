"""The Go reference's new-endpoint edit compiles in the working copy, and the tracked files stay as
they were."""

from __future__ import annotations

import subprocess

from perflab import apps
from perflab.devloop import edits, workcopy
from tests.conftest import needs_tool


@needs_tool("go", "needs Go")
def test_the_go_endpoint_compiles_in_the_copy_and_the_tracked_files_stay_as_they_were(workdir):
    app, endpoint = apps.get("go-reference"), edits.ENDPOINT["go-reference"]
    tracked = {p.name: p.read_bytes() for p in app.dir.glob("*.go")}
    with workcopy.WorkingCopy(app) as wc:
        wc.write(endpoint.file, endpoint.source.replace("TAG", "endpoint 1"))
        wc.edit(*endpoint.wiring)
        built = subprocess.run(["go", "vet", "."], cwd=wc.app.dir, capture_output=True, text=True, timeout=300)
        assert built.returncode == 0, built.stderr
        assert "devloopGreeting" in (wc.app.dir / "handlers.go").read_text()
    assert {p.name: p.read_bytes() for p in app.dir.glob("*.go")} == tracked
