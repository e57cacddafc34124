"""A plan with versions through the runner: each version is an app of its own (stored as
app@version, built once in its own copy), a version whose build fails is recorded unavailable with
the build's own error and the others are measured, and the report by version is written."""

from __future__ import annotations

from pathlib import Path

from perflab import report, version_builds
from tests.conftest import needs_root, write_standin_app
from tests.lab.plan_run import run_plan_on

pytestmark = needs_root("needs root for cgroups and the DB user")

# the stand-in's build refuses version 9 as a registry would refuse a release it does not serve
BUILD = ('command = ["sh", "-c", "test \\"$STANDIN_VERSION\\" != 9 || { echo \'[ERROR] Could not find artifact '
         'dev.standin:standin:jar:9 in central\' >&2; exit 1; }; mkdir -p out && cp src/version.txt out/artifact.txt"]')


def _versioned_standin(root: Path) -> Path:
    folder = write_standin_app(root, delay=0.1)
    desc = folder / "perflab.toml"
    text = desc.read_text()
    start = text.index('command = ["sh"')
    text = text[:start] + BUILD + text[text.index("\n", start):]
    desc.write_text(text.replace("[build]", '[versions]\nenv = { STANDIN_VERSION = "{version}" }\n\n[build]'))
    return folder


def test_versions_are_measured_apart_and_one_that_does_not_build_is_named(tmp_path, workdir, database):
    folder = _versioned_standin(tmp_path)
    plan = f"""
name = "versions-run-test"
apps = []
app_dirs = ["{folder}"]
scenarios = ["startup"]
repeats = 1
verify = false                   # a stand-in, not a contract app
[versions]
standin = ["9", "1.10", "1.9"]
[rounds]
target = 0
canary = false
[startup]
runs = 3
rest_s = 0
"""
    s, run_id = run_plan_on(database, plan)
    try:
        figures = s.figures(run_id)
        assert {f.app for f in figures if f.metric == "ttfr_ms"} == {"standin@1.9", "standin@1.10"}
        [missing] = [o for o in s.outcomes(run_id) if o["app"] == "standin@9"]
        assert missing["status"] == "unavailable"
        assert "Could not find artifact dev.standin:standin:jar:9" in missing["reason"]
        env = s.run(run_id)["environment_json"]
        assert "StandIn 1.9" in env and "StandIn 1.10" in env  # each figure's version recorded with the run
        rounds = s.rounds_record(run_id)
        assert rounds["headline"] == ["standin@1.10/jvm / standin@1.9/jvm"]  # consecutive, in release order
    finally:
        s.close()
    assert [(e["version"], e["builds"]) for e in version_builds.known("standin")] == [("1.9", True), ("1.10", True),
                                                                                 ("9", False)]
    paths = report.write_report(report.Store(), run_id, tmp_path / "report")
    page = paths.versions.read_text()
    assert "1.9 -&gt; 1.10" in page and "standin@9" in page
