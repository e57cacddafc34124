"""bench/eta.py: each progress line's estimate is judged against the time that really remained,
read from the run's closing line."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from perflab.paths import REPO_ROOT
from perflab.progress import fmt_duration


def _bench():
    spec = importlib.util.spec_from_file_location("bench_eta", REPO_ROOT / "bench" / "eta.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("s", [0, 7, 59, 60, 187, 3599, 3600, 3725])
def test_durations_read_back_as_the_progress_lines_print_them(s):
    # whole minutes are what fmt_duration keeps above an hour
    assert _bench().seconds(fmt_duration(s)) == (s if s < 3600 else s - s % 60)


def test_each_estimate_is_set_against_the_real_remaining_time(tmp_path, capsys):
    log = tmp_path / "quick.log"
    log.write_text("\n".join([
        "[1/4] footprint (elapsed 0s, left ~10m00s)",
        "warning: something the run said",
        "[2/4] quarkus/jvm startup (elapsed 1m00s, left ~9m00s)",     # 10 % of 600 s: judged, exact
        "[3/4] quarkus/jvm steady: launch 1/2 (elapsed 5m00s, left ~2m00s)",  # 300 s left: -60 %
        "[4/4] go-reference/native steady (elapsed 8m00s, left ~2m10s)",    # 120 s left: +8.3 %
        "done 4/4 steps in 10m00s",
    ]))
    found, total = _bench().estimates(log.read_text().splitlines())
    assert total == 600
    assert [(e.elapsed_s, e.left_s, e.real_s) for e in found] == [(0, 600, 600), (60, 540, 540), (300, 120, 300),
                                                                  (480, 130, 120)]
    assert found[2].error == pytest.approx(-0.6)
    assert _bench().main([str(log)]) == 0
    out = capsys.readouterr().out
    assert "2 of 3 estimates within +-25%" in out  # the first line is before 10 % of the run
    assert "MISS" in next(x for x in out.splitlines() if x.strip().startswith("300 s"))


def test_a_log_without_its_closing_line_is_refused(tmp_path, capsys):
    log = tmp_path / "cut.log"
    log.write_text("[1/4] footprint (elapsed 0s, left ~10m00s)\n")
    assert _bench().main([str(log)]) == 2
    assert "did not finish" in capsys.readouterr().err
