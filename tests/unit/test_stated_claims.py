"""RT-2019's and KT-2020's worded conclusions as claims: each rests on words its study's text
prints, and a run's figures make it held, not held or unclear (unclear with why when the lab
cannot measure it)."""

from __future__ import annotations

import pytest

from perflab import results
from perflab.analysis import stats
from perflab.report import stated_claims


def _flat(text: str) -> str:
    return " ".join(text.split())


def _cell(app, mode, scenario, point, metric, values, flags=()):
    return results.Cell(app, mode, scenario, point, metric, "", list(values), stats.summarize(list(values)),
                        flags=set(flags))


def _view(*cells, plan=None):
    return results.RunView("r", "complete", plan or {"name": "t", "scenarios": ["soak", "kt2020load", "startup"]},
                           {}, "h", 0.0, 1.0, list(cells), [])


def _verdict(view, key):
    return next(v for study in ("RT-2019", "KT-2020") for v in stated_claims.verdicts(view, study)
                if v.claim.id == key)


@pytest.mark.parametrize("s", stated_claims.STATED, ids=[s.id for s in stated_claims.STATED])
def test_each_stated_claim_rests_on_words_its_study_prints_where_it_says(s, study_text):
    text, at = _flat(study_text(s.study)), 0
    for part in s.passage:
        at = text.find(_flat(part), at)
        assert at >= 0, part
    assert s.wording in s.passage[-1]


def _soak(duration_s, drift="stable", errors=0.0, flags=()):
    return [_cell("quarkus", "native", "soak", "", "duration_s", [duration_s], flags),
            _cell("quarkus", "native", "soak", "", "rss_drift_mb_per_h", [0.4], [f"drift-{drift}", *flags]),
            _cell("quarkus", "native", "soak", "", "errors", [errors], flags)]


def test_the_native_soak_holds_only_over_the_studys_three_hours_and_fails_on_a_crash():
    assert _verdict(_view(*_soak(3.2 * 3600)), "rt2019-soak-no-restart").verdict == "held"
    short = _verdict(_view(*_soak(1800)), "rt2019-soak-no-restart")
    assert short.verdict == "unclear" and "30 min" in short.why and "3 h" in short.why
    crashed = _verdict(_view(*_soak(4000, flags=["crashed"])), "rt2019-soak-no-restart")
    assert crashed.verdict == "did not hold"


def test_stability_is_the_drift_and_the_errors_of_the_native_soak():
    assert _verdict(_view(*_soak(1800)), "rt2019-soak-stable").verdict == "held"
    assert _verdict(_view(*_soak(1800, drift="growing")), "rt2019-soak-stable").verdict == "did not hold"
    assert _verdict(_view(*_soak(1800, errors=3)), "rt2019-soak-stable").verdict == "did not hold"
    assert _verdict(_view(*_soak(1800, drift="undetermined")), "rt2019-soak-stable").verdict == "unclear"


def test_a_soak_on_the_jvm_stand_in_does_not_judge_the_native_claims():
    jvm = [_cell("quarkus", "jvm", "soak", "", m, [v]) for m, v in (("duration_s", 20000), ("errors", 0))]
    v = _verdict(_view(*jvm), "rt2019-soak-no-restart")
    assert v.verdict == "unclear" and "native image was not soaked" in v.why


def test_full_collections_of_a_native_image_are_not_measured_so_unclear():
    v = _verdict(_view(*_soak(20000)), "rt2019-soak-full-gc")
    assert v.verdict == "unclear" and "not measured" in v.why


def _long(app, mode, get, post):
    return [_cell(app, mode, "kt2020load", "GET long", "rps", [get]),
            _cell(app, mode, "kt2020load", "POST long", "rps", [post])]


def test_warm_spring_best_is_judged_on_every_apps_long_run():
    ahead = _view(*_long("spring-boot", "jvm", 7000, 2800), *_long("quarkus", "jvm", 3000, 1000))
    v = _verdict(ahead, "kt2020-warm-spring-best")
    assert v.verdict == "held" and "GET Spring / Q-JVM 2.33x" in v.why
    behind = _view(*_long("spring-boot", "jvm", 7000, 2800), *_long("quarkus", "jvm", 3000, 1000),
                   *_long("kt2020-spring", "as-published", 1500, 700), *_long("kt2020-quarkus", "as-published", 2000, 900))
    v = _verdict(behind, "kt2020-warm-spring-best")
    assert v.verdict == "did not hold" and "Spring as published / Q-JVM as published 0.75x" in v.why
    none = _verdict(_view(*_long("spring-boot", "jvm", 7000, 2800)), "kt2020-warm-spring-best")
    assert none.verdict == "unclear"


def test_native_launch_wins_only_against_both_jvm_apps_and_is_unclear_without_native():
    def launches(native):
        return _view(_cell("spring-boot", "jvm", "startup", "warm", "framework_start_ms", [2800]),
                     _cell("quarkus", "jvm", "startup", "warm", "framework_start_ms", [1700]),
                     *([_cell("quarkus", "native", "startup", "warm", "framework_start_ms", [native])] if native else []))
    assert _verdict(launches(20), "kt2020-native-launch").verdict == "held"
    assert _verdict(launches(2000), "kt2020-native-launch").verdict == "did not hold"
    absent = _verdict(launches(None), "kt2020-native-launch")
    assert absent.verdict == "unclear" and "quarkus/native" in absent.why
