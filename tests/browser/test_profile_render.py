"""The report's flame graphs in a real browser (as tests/browser/test_report_render.py does for the
other charts): offline, with no console errors, Plotly draws each profile's Icicle and the
differential one, with a slice per kept frame path."""

from __future__ import annotations

import re

import pytest

from perflab.report import write_report
from perflab.store import Store
from tests.browser.test_report_render import OFFLINE, SETTLE, chromium_binary, console_messages, run_chromium
from tests.unit.test_report import make_run
from tests.unit.test_report_profiles import QUARKUS, SPRING, _store_profile


@pytest.fixture
def profiled_report(tmp_path, workdir):
    store = Store()
    run_id = make_run(store).run_id
    for p in (QUARKUS, SPRING):
        _store_profile(store, run_id, p)
    return write_report(store, run_id, tmp_path / "report").html


def _slices(dom: str, key: str) -> int:
    """The slices Plotly drew in the chart figure whose data-chart is `key`."""
    start = dom.index(f'data-chart="{key}"')
    end = dom.find("</figure>", start)
    return len(re.findall(r'<g class="slice[ "]', dom[start:end]))  # not its slicetext


def test_plotly_draws_the_flame_graphs_offline_with_no_console_errors(profiled_report, tmp_path):
    done = run_chromium(chromium_binary(), tmp_path / "profile", profiled_report.as_uri(), OFFLINE, SETTLE,
                        "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_messages(done.stderr) == []
    dom = done.stdout
    # each profile has 4 frame paths under the root (main, http, json, orm) and the root itself
    assert _slices(dom, "profile-quarkus-jvm-fruits-c4") == 5
    assert _slices(dom, "profile-spring-boot-jvm-fruits-c4") == 5
    assert _slices(dom, "diff-quarkus-jvm-spring-boot-jvm") == 5
