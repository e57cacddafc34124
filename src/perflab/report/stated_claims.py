"""What RT-2019 and KT-2020 conclude in words rather than figures (the native soak's stability,
the blog's "came out best" and "wins"), each a claim with the verdict a run gives it: held, did
not hold, or unclear, with why, as LAB-2020's developer-loop claims are judged (devloop_claims).
A statement the lab does not measure is unclear, and says so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from perflab.present.published.claim_types import Where
from perflab.present.published.claims import claim
from perflab.present.published.kt2020_figures import (KT2020_GET, KT2020_LAUNCH_MS, KT2020_POST, KT2020_SOAK_GET,
                                                      KT2020_SOAK_POST)
from perflab.present.published.studies import target_of
from perflab.report import ratios
from perflab.results import Cell, RunView

HELD, NOT_HELD, UNCLEAR = "held", "did not hold", "unclear"  # the words of report.ratios and devloop_claims
NATIVE = target_of("Q-native")
RT2019_SOAK_S = 3 * 3600.0  # "more than 3hrs at a time"


@dataclass(frozen=True)
class Stated:
    id: str
    study: str
    text: str  # the claim, in the lab's words
    wording: str  # the study's few words it rests on, as printed
    passage: tuple[str, ...]  # strings found in order in the study's text, the last holding the wording
    judge: Callable[[RunView], tuple[str, str]]  # (verdict, why)


@dataclass(frozen=True)
class Verdict:
    claim: Stated
    verdict: str
    why: str


def _soak_cell(view: RunView, metric: str) -> Cell | None:
    return next((c for c in view.find("soak", metric, "") if c.target == NATIVE), None)


def _not_soaked(view: RunView) -> str:
    return ("the native image was not soaked in this run: "
            + ratios.missing_reason(view, claim("rt2019-soak"), NATIVE))


def _no_restart(view: RunView) -> tuple[str, str]:
    cell = _soak_cell(view, "duration_s")
    if cell is None:
        return UNCLEAR, _not_soaked(view)
    ran = cell.summary.median
    if "crashed" in cell.flags:
        return NOT_HELD, f"the native process failed {ran / 60:.0f} min into the soak"
    if "interrupted" in cell.flags:
        return UNCLEAR, f"the soak was stopped after {ran / 60:.0f} min"
    if ran < RT2019_SOAK_S:  # a shorter soak shows no restart in its own span only
        return UNCLEAR, f"{ran / 60:.0f} min without a restart, shorter than the study's 3 h"
    return HELD, f"{ran / 3600:.1f} h without a restart"


def _stable(view: RunView) -> tuple[str, str]:
    drift, errors = _soak_cell(view, "rss_drift_mb_per_h"), _soak_cell(view, "errors")
    if drift is None:
        return UNCLEAR, _not_soaked(view)
    verdict = next((f.removeprefix("drift-") for f in drift.flags if f.startswith("drift-")), "undetermined")
    said = f"RSS {verdict} ({drift.summary.median:+.1f} MB/h)"
    failed = errors.summary.median if errors is not None else 0.0
    if failed > 0 or verdict == "growing":
        return NOT_HELD, f"{said}, {failed:,.0f} errors"
    if verdict == "stable":
        return HELD, f"{said}, no errors"
    return UNCLEAR, f"{said}: the drift does not tell"


def _full_gcs(view: RunView) -> tuple[str, str]:
    return UNCLEAR, ("not measured: the lab counts collections from a JVM's GC log, and a native image writes "
                     "none here")


def _ratios(view: RunView, where: Where, pairs, published: Callable[[str, str], float]) -> list[tuple[str, Any]]:
    """Each (a, b) pair of the study's labels, both measured here, as a / b with its direction
    (a report.ratios.Ratio)."""
    out = []
    for a, b in pairs:
        ma, mb = (ratios.find_measured(view, where, target_of(x)) for x in (a, b))
        if ma and mb:
            out.append((f"{a} / {b}", ratios.ratio_of(ma.cell, mb.cell, published(a, b), view=view)))
    return out


def _overall(found: list[tuple[str, Any]], absent: str, reading: str) -> tuple[str, str]:
    if not found:
        return UNCLEAR, absent
    verdicts = {r.verdict for _, r in found}
    verdict = NOT_HELD if NOT_HELD in verdicts else HELD if verdicts == {HELD} else UNCLEAR
    shown = "; ".join(f"{pair} {r.measured:.2f}x ({r.verdict})" for pair, r in found)
    return verdict, f"{shown}; {reading}"


_SPRING_PAIRS = (("Spring", "Q-JVM"), ("Spring", "Q-native"), ("Spring as published", "Q-JVM as published"))
_BLOG_RPS = {"GET": (KT2020_SOAK_GET, KT2020_GET), "POST": (KT2020_SOAK_POST, KT2020_POST)}


def _warm_spring_best(view: RunView) -> tuple[str, str]:
    found = []
    for method, (warm, ten_s) in _BLOG_RPS.items():
        def blog(a: str, b: str, warm=warm, ten_s=ten_s) -> float:
            # its warmed Spring Boot against the other app's 10-s run: it ran no long one of those
            return warm["Spring"] / ten_s[b.removesuffix(" as published")]
        found += [(f"{method} {pair}", r) for pair, r in
                  _ratios(view, Where("kt2020load", "rps", f"{method} long"), _SPRING_PAIRS, blog)]
    return _overall(found, "no long run of Spring Boot and a Quarkus app in this run",
                    "judged on every app's long run; the blog set its warmed Spring Boot against Quarkus's 10-s runs")


def _native_launch_wins(view: RunView) -> tuple[str, str]:
    found = _ratios(view, Where("startup", "framework_start_ms", "warm"), (("Spring", "Q-native"), ("Q-JVM", "Q-native")),
                    lambda a, b: KT2020_LAUNCH_MS[a] / KT2020_LAUNCH_MS[b])
    return _overall(found, f"{NATIVE} and another app's launches are not both in this run",
                    "launch time from the log, the median of the launches after the first, as the blog's")


_LONG = "Quarkus native - Long running processes"
_SUMMARY = "### Lets summarize and plot data!"

STATED: tuple[Stated, ...] = (
    Stated("rt2019-soak-no-restart", "RT-2019", "the native image runs for hours without a process restart",
           "without process restarts", ("Native images are not just for short running processes",
                                        "The tests ran for up to 3 hours, without process restarts"), _no_restart),
    Stated("rt2019-soak-stable", "RT-2019", "the native process stays stable through the long run",
           "the process remained stable throughout", (_LONG, "the process remained stable throughout"), _stable),
    Stated("rt2019-soak-full-gc", "RT-2019", "the native image's long run goes through hundreds of full collections",
           "caused hundreds of Full GC cycles", (_LONG, "caused hundreds of Full GC cycles"), _full_gcs),
    Stated("kt2020-warm-spring-best", "KT-2020", "warmed up, Spring Boot has the highest throughput of all",
           "the warm-up Spring Boot came out best", (_SUMMARY, "the warm-up Spring Boot came out best"),
           _warm_spring_best),
    Stated("kt2020-native-launch", "KT-2020", "Quarkus native launches fastest, by far",
           "Quarkus (native) wins with a significant advantage",
           ("#### Application launch time", "Quarkus (native) wins with a significant advantage"),
           _native_launch_wins),
)


def verdicts(view: RunView, study: str) -> list[Verdict]:
    return [Verdict(s, *s.judge(view)) for s in STATED if s.study == study]


def remarks(view: RunView, study: str) -> list[str]:
    return [f'{study} "{v.claim.wording}" ({v.claim.text}): {v.verdict}: {v.why}.' for v in verdicts(view, study)]


# The scenarios whose section of a report ends with a study's stated claims and their verdicts
# (judged here, in the report layer: the verdicts read the report's ratios of the published claims).
STUDY_OF_SCENARIO = {"soak": "RT-2019", "kt2020load": "KT-2020"}


def scenario_words(sc, view: RunView) -> tuple[list, list[str]]:
    """A scenario's tables of words and remarks (Scenario.words), and after its remarks the verdicts
    on the stated claims of the study it measures, where it measures one."""
    tables, said = sc.words(view)
    study = STUDY_OF_SCENARIO.get(sc.name)
    return tables, said + (remarks(view, study) if study else [])
