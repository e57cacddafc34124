"""The verdict per version change on real builds and real launches: the Go reference built as three
"versions" by a build tag, the third one deliberately slowed (a sleep before main, made only here),
launched in interleaved rounds and judged on its time to first response. The slowed build must be
judged a regression and fail a pipeline's gate; an unchanged rebuild must not. (That the rebuild is
judged "within noise" is not asserted: a 95 % interval excludes 1 in one run of identical builds out
of twenty by its own design, so such a test would fail as often; the verdict's logic is unit-tested.)"""

from __future__ import annotations

import shutil

import pytest

from perflab import apps, procs, results, rounds, version_builds
from perflab.apps import versions
from perflab.report import gate
from perflab.report.version_changes import SLOWER, changes
from perflab.store import Store

pytestmark = pytest.mark.slow

ROUNDS = 12  # two blocks of the rounds' balanced design for three versions
GATE_PCT = 20  # a pipeline's threshold: the slowed build is far beyond it, a rebuild's noise far within
SLOW_MS = 150  # the slowed build's sleep; the Go reference answers its first request within a few ms
# Go build constraints name the variant: each version is built with the tag perflab_v<version>.
SLOWED = f"""//go:build perflab_v3

package main

import "time"

// A deliberate regression for the verdict's test: every launch waits before main.
func init() {{ time.Sleep({SLOW_MS} * time.Millisecond) }}
"""


def _tagged_go_reference(root):
    """A copy of the Go reference whose [versions] selects a build tag, with the slowed file."""
    src = apps.get("go-reference")
    dest = root / "go-reference"
    dest.mkdir()
    for name in src.sources:
        shutil.copy2(src.dir / name, dest / name)
    desc = (src.dir / "perflab.toml").read_text()
    start = desc.index("[versions]")
    end = desc.index("[build]")
    desc = desc[:start] + '[versions]\nenv = { GOFLAGS = "-tags=perflab_v{version}" }\n\n' + desc[end:]
    desc = desc.replace('sources = ["go.mod"', 'sources = ["slowed.go", "go.mod"')
    (dest / "perflab.toml").write_text(desc)
    (dest / "slowed.go").write_text(SLOWED)
    return apps.load_descriptor(dest / "perflab.toml")


def _ttfr_ms(app, log_dir) -> float:
    port = procs.free_port()
    running = apps.launch(app, "native", port=port, log_path=log_dir / f"{app.name}-{port}.log",
                          db_env={"DB_URL": "jdbc:postgresql://127.0.0.1:1/none", "DB_USER": "x", "DB_PASSWORD": "x"})
    try:
        return 1000 * apps.wait_ready(running, timeout=30, path=app.first_response_path, interval=0.002)
    finally:
        running.stop()


def test_a_slowed_build_is_a_regression_the_gate_flags_and_an_unchanged_rebuild_is_not(tmp_path, workdir):
    app = _tagged_go_reference(tmp_path)
    built = [versions.variant(app, v) for v in ("1", "2", "3")]  # 2: an unchanged rebuild of 1; 3: slowed
    for variant in built:
        assert not version_builds.build(variant, log=lambda _: None).cached
    assert version_builds.build(versions.variant(app, "3"), log=lambda _: None).cached  # each version is built once
    log_dir = tmp_path / "logs"
    log_dir.mkdir()
    for variant in built:  # a first launch of each, not counted: the binary into the page cache
        _ttfr_ms(variant, log_dir)
    store = Store()
    run = store.begin_run({"name": "versions-test"}, {})
    by_name = {v.name: v for v in built}
    for n, order in enumerate(rounds.orders(7, list(by_name), ROUNDS), start=1):
        for name in order:
            store.add_figure(run, name, "native", "startup", "ttfr_ms", _ttfr_ms(by_name[name], log_dir), "ms",
                             point="warm", repeat=n)
    store.finish_run(run, "complete")
    view = results.load(store, run)
    verdicts = {(c.older, c.newer): c.verdict for c in changes(view) if c.headline.key == "ttfr"}
    assert verdicts[("2", "3")].verdict == SLOWER, verdicts[("2", "3")]
    assert verdicts[("2", "3")].regression_beyond(100)  # +150 ms on a few ms
    assert abs(verdicts[("1", "2")].change_pct) < GATE_PCT, verdicts[("1", "2")]
    flagged = gate.version_regressions(view, GATE_PCT)
    assert len(flagged) == 1 and "go-reference/native 2 -> 3 " in flagged[0], flagged
    assert [e["version"] for e in version_builds.known("go-reference") if e["builds"]] == ["1", "2", "3"]
