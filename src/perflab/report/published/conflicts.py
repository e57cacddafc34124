"""Where the studies contradict themselves, and what perflab could not transcribe.

Each contradiction quotes the study's words, shows what its own figures give (computed from the
transcribed figures, so a corrected transcription corrects the text), and names the value perflab
compares with. What the studies' texts do not give is listed as not transcribed, with why,
never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median
from typing import Callable

from perflab.report.published import attributes
from perflab.report.published.claims import claim
from perflab.report.published.curves import RT2019_LABELS, peak, rt2019_column
from perflab.report.published.projection import printed as printed_projection


@dataclass(frozen=True)
class Contradiction:
    key: str
    study: str
    topic: str
    wordings: tuple[str, ...]  # the study's words, as printed
    figures_say: Callable[[], str]  # what the study's own figures give
    compared: str  # the value perflab compares with, and why
    claim: str = ""  # the claim it concerns

    def finding(self) -> str:
        return self.figures_say()


def _pct(x: float) -> str:
    return f"{x:.1%}".replace("%", " %")


def _reduction(label: str, connections: int = 40) -> float:
    """1 - max latency / Thorntail's, from Table 2 at a connection count."""
    return 1 - rt2019_column("latency_max_ms", label)[connections] / rt2019_column("latency_max_ms", "Thorntail")[connections]


def _max_latency_reductions() -> str:
    base = rt2019_column("latency_max_ms", "Thorntail")[40]
    native, jvm = rt2019_column("latency_max_ms", "Q-native")[40], rt2019_column("latency_max_ms", "Q-JVM")[40]
    return (f"Table 2 at 40 connections gives native 1 - {native:g}/{base:g} = {_pct(_reduction('Q-native'))} and JVM "
            f"1 - {jvm:g}/{base:g} = {_pct(_reduction('Q-JVM'))}: the summary's {_attr_pct(_JVM_REDUCTION)} for JVM is "
            f"native's, and native's printed {_attr_pct(_NATIVE_REDUCTION)} is neither: it is 1 - "
            f"{_prose_max('Q-native'):g}/{_prose_max('Thorntail'):g} = "
            f"{_pct(1 - _prose_max('Q-native') / _prose_max('Thorntail'))}, the prose's native maximum against "
            f"Thorntail's")


def _table_max(label: str) -> tuple[int, float]:
    return peak("latency_max_ms", label)


def _prose_max(label: str) -> float:
    return attributes.printed(_PROSE_MAX[label])


def _swapped_latencies() -> str:
    found = []
    for label in ("Q-JVM", "Q-native"):
        quoted = _prose_max(label)
        owner, conns = next((other, c) for other in RT2019_LABELS
                            for c, v in rt2019_column("latency_max_ms", other).items() if v == quoted)
        found.append(f"{quoted:g} ms (quoted for {label}) is Table 2's {owner} max at {conns} connections")
    maxima = ", ".join(f"{label} {v:g} ms at c={c}" for label in RT2019_LABELS for c, v in [_table_max(label)])
    return "; ".join(found) + f". Table 2's maxima: {maxima}"


def _memory_increase() -> str:
    c = claim("rt2019-max-rss")
    jvm = printed_projection("Q-JVM")
    return (f"{c.value('Q-JVM'):g} MB vs {c.value('Q-native'):g} MB is +{_pct(c.value('Q-JVM') / c.value('Q-native') - 1)}; "
            f"{attributes.printed('2gQuarkusJvmMaxCompareThorntail'):g} is the 2048 MB table's JVM overall against Thorntail's "
            f"({jvm.overall_rps:,.0f} / {printed_projection('Thorntail').overall_rps:,.0f} = {jvm.vs_thorntail_pct:g} %)")


def _native_3_2_median() -> str:
    c = claim("lab2020-coldstart-ttfr")
    raw = dict(c.raw)["Q-native"]
    m = median(raw)
    return (f"the median of {', '.join(f'{v / 1000:.3f}' for v in raw)} s is {m / 1000:.3f} s; with it A / native is "
            f"{c.value('A') / m:.2f}x, as the summary's \"~4.5×\" says ({c.value('A') / dict(c.printed)['Q-native']:.2f}x "
            f"with 9.585 s)")


def _native_3_2_ratio() -> str:
    c = claim("lab2020-coldstart-ttfr")
    a = c.value("A")
    return (f"22.9 % is {dict(c.printed)['Q-native'] / 1000:.3f} / {a / 1000:.3f} s (the printed median); the median "
            f"of the listed runs gives {_pct(c.value('Q-native') / a)}; Q-JVM's {_pct(c.value('Q-JVM') / a)} agrees")


def _native_3_2_compared() -> str:
    """What the verdicts divide: Q-JVM's ratio as stated, Q-native's from the median it is compared as."""
    c = claim("lab2020-coldstart-ttfr")
    a, native = c.value("A"), c.value("Q-native")
    return (f"Q-JVM: the stated {_pct(c.published_ratio('Q-JVM'))} (its figures give the same); Q-native: "
            f"{native / 1000:.3f} / {a / 1000:.3f} s = {_pct(c.published_ratio('Q-native'))}, the median of its listed "
            f"runs over A's, not the stated 22.9 %, which is the printed {dict(c.printed)['Q-native'] / 1000:.3f} s's")


def _pods_ratio() -> str:
    c = claim("lab2020-pods-2gb")
    return f"the counts {c.value('Q-JVM'):g} / {c.value('A'):g} give {c.value('Q-JVM') / c.value('A'):.2f}x"


def _soak_count() -> str:
    body = claim("rt2019-soak").value("Q-native")
    summary = attributes.printed("quarkusNativeNumberRequestsMillion") * 1e6
    return (f"the summary says over {summary / 1e6:g} million, the body over {body:,.0f}: at least "
            f"{body - summary:,.0f} more, {body / summary:.2f}x the summary's")


_NATIVE_REDUCTION = "quarkusNativeMaxResponseTimeReduction"
_JVM_REDUCTION = "quarkusJvmmaxresponsetimereduction"
_PROSE_MAX = {"Thorntail": "thorntailMaxResponseTime", "Q-JVM": "quarkusJvmMaxResponseTime",
              "Q-native": "quarkusNativeMaxResponseTime"}


def _attr_pct(name: str) -> str:
    return f"{attributes.printed(name):g} %"


def _words(name: str, template: str) -> str:
    return template.format(attributes.printed(name))


CONTRADICTIONS: list[Contradiction] = [
    Contradiction("rt2019-soak-count", "RT-2019", "requests served by the native soak",
                  (_words("quarkusNativeNumberRequestsMillion", 'summary: "served over {:g} MILLION requests"'),
                   f'body: "over {claim("rt2019-soak").value("Q-native"):,.0f}"'), _soak_count,
                  "51,890,000 (the body's figure)", "rt2019-soak"),
    Contradiction("rt2019-latency-headline", "RT-2019", "reduction of maximum latency (summary)",
                  (_words(_NATIVE_REDUCTION, 'native: "reducing maximum response time latencies by up to {:g}%"'),
                   _words(_JVM_REDUCTION, 'JVM: "reducing maximum response time latencies by up to {:g}%"')),
                  _max_latency_reductions, "Table 2's max latencies at 40 connections", "rt2019-max-40"),
    Contradiction("rt2019-latency-swap", "RT-2019", "maximum latencies quoted in the prose",
                  (_words(_PROSE_MAX["Thorntail"], '"Thorntail took {:g}ms to service at least one request"'),
                   _words(_PROSE_MAX["Q-JVM"], '"{:g}ms for Quarkus JVM"'),
                   _words(_PROSE_MAX["Q-native"], '"{:g}ms for Quarkus Native"'),
                   _words(_NATIVE_REDUCTION, '"super-stable and up to {:g}% lower than Thorntail"')),
                  _swapped_latencies, "Table 2 (its 40-connection row for the verdicts)", "rt2019-max-40"),
    Contradiction("rt2019-memory-277", "RT-2019", "memory of Quarkus JVM against native",
                  (_words("2gQuarkusJvmMaxCompareThorntail", '"uses up to {:g}% more memory (RSS)"'),),
                  _memory_increase, "the max RSS figures (414 and 122 MB)", "rt2019-max-rss"),
    Contradiction("lab2020-3.2-median", "LAB-2020", "lab 3.2 native median",
                  ('"9.237, 9.076, 9.585 s"', '"MED: 9.585 s"'), _native_3_2_median,
                  "9.237 s, the median of the study's own three runs", "lab2020-coldstart-ttfr"),
    Contradiction("lab2020-3.2-ratio", "LAB-2020", "lab 3.2 ratios of time to first response",
                  ('"roughly 47.6 %"', '"22.9 %"'), _native_3_2_ratio,
                  _native_3_2_compared(), "lab2020-coldstart-ttfr"),
    Contradiction("lab2020-3.1-limits", "LAB-2020", "lab 3.1's container limits",
                  ('appendix, Bare-Metal Environment A: "CGroups limit used 4 cores, 256 MB"',
                   "lab 3.1's script settings: container_cpu_limit=4, container_memory_limit=512M"),
                  lambda: ("the same lab gets 256 MB from the appendix's environment table and 512 MB from its own "
                           "script; the 4 cores agree, and the text does not say which memory limit the runs had"),
                  "neither limit settles lab 3.1's figures: the plan's limits are declared in its reductions",
                  "lab2020-ttfr"),
    Contradiction("lab2020-2.1-environment", "LAB-2020", "where lab 2.1 ran",
                  ('lab 2.1: on-premises containers on bare metal ("Bare-Metal Environment A")',
                   "its appendix: pods scaled 0 -> 1 on the Kubernetes cluster, set up with make oc-setup"),
                  lambda: (f"the text gives no figure to settle it; its times "
                           f"({min(claim('lab2020-scaleup').value(x) for x in ('A', 'Q-JVM', 'Q-native')) / 1000:.3f}"
                           f" to {max(claim('lab2020-scaleup').value(x) for x in ('A', 'Q-JVM', 'Q-native')) / 1000:.3f}"
                           f" s) are several times lab 3.1's launches on the same environment "
                           f"({claim('lab2020-ttfr').value('Q-native') / 1000:.3f} to "
                           f"{claim('lab2020-ttfr').value('A') / 1000:.3f} s)"),
                  "launch to readiness here, no Kubernetes (declared as placement.kind)", "lab2020-scaleup"),
    Contradiction("lab2020-1.2B-pods", "LAB-2020", "lab 1.2B pods of Quarkus JVM against A",
                  ('"~1.5× more pods"', '"roughly 1.25 times as many"'), _pods_ratio,
                  "the counts 18 and 12 (1.5x)", "lab2020-pods-2gb"),
]


@dataclass(frozen=True)
class Untranscribed:
    study: str
    what: str
    why: str


NOT_TRANSCRIBED: list[Untranscribed] = [
    Untranscribed("RT-2019", "the number of start-up launches, the runs' durations and warm-up, wrk's threads",
                  "the study's text does not state them"),
    Untranscribed("LAB-2020", "lab 1.3's RSS at each connection count (its throughput at each is transcribed)",
                  "the text prints lab 1.3's memory only at each app's peak throughput (40 connections for all three)"),
    Untranscribed("LAB-2020", "lab 1.3's warm-up, ramp-up and steady-state durations",
                  "the appendix's load job leaves them as parameters, and the text gives no values"),
    Untranscribed("LAB-2020", "Framework A's name and version, and the Quarkus version of labs 1.1 to 3.2",
                  "the study does not name them (it names Quarkus 1.2.1.Final and Java SE 11 for labs 4.1.1 to 4.1.3, "
                  "and OpenJDK 8 images for the JVM apps)"),
    Untranscribed("KT-2020", "the JDK the services ran on, and the machine",
                  "the blog does not name them (its builds target Java 11)"),
]


def for_claim(key: str) -> list[Contradiction]:
    return [c for c in CONTRADICTIONS if c.claim == key]


def contradiction_rows() -> list[dict[str, str]]:
    """The contradictions as the reports list them: the study's words, what its figures give, and
    the value perflab compares with."""
    return [{"key": c.key, "study": c.study, "topic": c.topic, "wording": " / ".join(c.wordings),
             "finding": c.finding(), "compared": c.compared} for c in CONTRADICTIONS]
