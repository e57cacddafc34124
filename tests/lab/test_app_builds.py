"""App builds are cached by the sources' hash: a build command really runs, once per change."""

from __future__ import annotations

import pytest

from perflab import apps
from perflab.errors import LabError
from tests.conftest import write_standin_app

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group


def test_second_build_without_change_runs_no_build_and_a_change_rebuilds(tmp_path, workdir):
    app = apps.load_descriptor(write_standin_app(tmp_path) / "perflab.toml")
    count = app.dir / "build-count"
    first = apps.build(app, log=lambda m: None)
    assert not first.cached and count.read_text().count("built") == 1
    messages = []
    second = apps.build(app, log=messages.append)
    assert second.cached and count.read_text().count("built") == 1
    assert "nothing to build" in messages[0]
    (app.dir / "src" / "version.txt").write_text("2\n")
    third = apps.build(app, log=lambda m: None)
    assert not third.cached and count.read_text().count("built") == 2
    assert third.hash != first.hash


def test_missing_artifact_forces_a_rebuild(tmp_path, workdir):
    app = apps.load_descriptor(write_standin_app(tmp_path) / "perflab.toml")
    apps.build(app, log=lambda m: None)
    app.artifact_path.unlink()
    assert not apps.build(app, log=lambda m: None).cached


def test_failing_build_shows_the_log_tail(tmp_path, workdir):
    app_dir = write_standin_app(tmp_path)
    desc = app_dir / "perflab.toml"
    desc.write_text(desc.read_text().replace('command = ["sh", "-c", "mkdir', 'command = ["sh", "-c", "echo compiler says no; exit 3; mkdir'))
    app = apps.load_descriptor(desc)
    with pytest.raises(LabError) as err:
        apps.build(app, log=lambda m: None)
    assert "exit 3" in err.value.message
    assert "compiler says no" in err.value.details
