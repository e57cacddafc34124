"""kt2020load's launches with a real process (a stand-in app, not a framework): the blog ran its
10 s GET and POST runs each on a freshly started app, so the cold POST run is served by another
process than the cold GET run, while the warm runs stay on the GET launch after its warm-up.
Nothing may be left running."""

from __future__ import annotations

import pytest

from tests.conftest import needs_root, write_standin_app
from tests.lab.scenario_lab import built, cleanup, lab_cgroups, live_standins, make_lab, run_scenario

pytestmark = [needs_root("needs root for cgroups and the DB user"), pytest.mark.standin]

PLAN = """
name = "kt2020load-test"
apps = ["standin"]
verify = false
scenarios = ["kt2020load"]
[limits]
memory_mb = 256
[kt2020load]
launches = 1
run_s = 1
warmup_s = 2
long_s = 0
rest_s = 0.5
memory_load_s = 1
timeout_s = 20
"""


def test_the_cold_post_run_is_served_by_a_freshly_started_process_of_its_own(tmp_path, workdir, database,
                                                                            monkeypatch):
    root = tmp_path / "apps"
    monkeypatch.setenv("PERFLAB_APPS_DIR", str(root))
    write_standin_app(root, "standin", delay=0.1)
    app = built("standin")
    lab = make_lab(PLAN, database[1])
    try:
        run_scenario(lab, "kt2020load", app, "jvm")
        figures = [f for f in lab.store.figures(lab.run_id) if f.scenario == "kt2020load"]
        served = {f.point: f.extra for f in figures if f.metric == "app_age_s"}
        assert set(served) == {"GET cold", "POST cold", "GET warm", "POST warm"}
        assert served["POST cold"]["pid"] != served["GET cold"]["pid"]
        assert served["POST cold"]["launch"] != served["GET cold"]["launch"]
        # the warm runs are the GET launch's, after its warm-up
        assert served["GET warm"]["pid"] == served["POST warm"]["pid"] == served["GET cold"]["pid"]
        assert {f.point for f in figures if f.metric == "rps"} == set(served) | {"under load"}
        assert live_standins(lab.log_dir) == set()
        assert lab_cgroups(lab.run_id) == []
    finally:
        cleanup(lab)
