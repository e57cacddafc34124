"""Where the studies contradict themselves, and what perflab could not transcribe.

Each contradiction quotes the study's words, shows what its own figures give (computed from the
transcribed figures, so a corrected transcription corrects the text), and names the value perflab
compares with. A figure not available in the sources perflab has is listed as not transcribed,
never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median
from typing import Callable

from perflab.report.published.claims import claim


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


def _max_latency_reductions() -> str:
    c = claim("rt2019-max-40")
    base = c.value("Thorntail")
    return (f"Table 2 at 40 connections gives a max latency {_pct(1 - c.value('Q-native') / base)} below Thorntail's "
            f"for native and {_pct(1 - c.value('Q-JVM') / base)} for JVM")


def _memory_increase() -> str:
    c = claim("rt2019-max-rss")
    return (f"{c.value('Q-JVM'):g} MB vs {c.value('Q-native'):g} MB is "
            f"+{_pct(c.value('Q-JVM') / c.value('Q-native') - 1)}")


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


def _pods_ratio() -> str:
    c = claim("lab2020-pods-2gb")
    return f"the counts {c.value('Q-JVM'):g} / {c.value('A'):g} give {c.value('Q-JVM') / c.value('A'):.2f}x"


def _soak_count() -> str:
    return "two different counts for the same run; only the body's is a figure with digits"


def _swapped_latencies() -> str:
    return "the Table 2 row holding these two values is not transcribed here, so perflab cannot say which is whose"


CONTRADICTIONS: list[Contradiction] = [
    Contradiction("rt2019-soak-count", "RT-2019", "requests served by the native soak",
                  ('summary: "served over 33 MILLION requests"', 'body: "over 51,890,000"'), _soak_count,
                  "51,890,000 (the body's figure)", "rt2019-soak"),
    Contradiction("rt2019-latency-headline", "RT-2019", "reduction of maximum latency",
                  ('"reducing maximum response time latencies by up to 42.7 %" (native)', '66.3 % (JVM)'),
                  _max_latency_reductions, "Table 2's max latencies at 40 connections", "rt2019-max-40"),
    Contradiction("rt2019-latency-swap", "RT-2019", "latencies quoted in the prose",
                  ("the prose gives 65.01 ms and 83.27 ms the other way round from Table 2",), _swapped_latencies,
                  "Table 2 (its 40-connection row only)", "rt2019-max-40"),
    Contradiction("rt2019-memory-277", "RT-2019", "memory of Quarkus JVM against native",
                  ('"up to 277 % more memory"',), _memory_increase, "the max RSS figures (414 and 122 MB)",
                  "rt2019-max-rss"),
    Contradiction("lab2020-3.2-median", "LAB-2020", "lab 3.2 native median",
                  ('"9.237, 9.076, 9.585 s"', '"MED: 9.585 s"'), _native_3_2_median,
                  "9.237 s, the median of the study's own three runs", "lab2020-coldstart-ttfr"),
    Contradiction("lab2020-3.2-ratio", "LAB-2020", "lab 3.2 ratios of time to first response",
                  ('"roughly 47.6 %"', '"22.9 %"'), _native_3_2_ratio,
                  "the stated 47.6 % and 22.9 % (the study's own comparison)", "lab2020-coldstart-ttfr"),
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
    Untranscribed("RT-2019", "Tables 1 and 2 beyond the 40-connection row (throughput and latency at 1..35 "
                  "connections)", "the rows are not in the sources available here; the shape the text describes "
                  "(Thorntail falling after 25 connections, Quarkus JVM peaking at 35) cannot be drawn"),
    Untranscribed("RT-2019", "the per-process req/s behind the 2048 MB projection",
                  "not printed; the totals divided by the process counts imply it"),
    Untranscribed("RT-2019", "the exact sentence quoting 65.01 and 83.27 ms", "not in the sources available here"),
    Untranscribed("LAB-2020", "lab 1.3's full table (throughput and RSS per connection count)",
                  "only the peaks are in the sources available here"),
    Untranscribed("LAB-2020", "lab 1.2B memory", "not in the sources available here"),
    Untranscribed("LAB-2020", "lab 3.1 and 3.2 raw runs of A and Quarkus JVM, and lab 3.1's of native",
                  "only the medians are in the sources available here"),
    Untranscribed("KT-2020", "the 11 launch values per app", "only their medians and the first launch are in the "
                  "sources available here"),
    Untranscribed("all", "the framework and JDK versions beyond Quarkus 0.18 / Thorntail 2.4",
                  "not in the sources available here"),
]


def for_claim(key: str) -> list[Contradiction]:
    return [c for c in CONTRADICTIONS if c.claim == key]


def contradiction_rows() -> list[dict[str, str]]:
    """The contradictions as the reports list them: the study's words, what its figures give, and
    the value perflab compares with."""
    return [{"key": c.key, "study": c.study, "topic": c.topic, "wording": " / ".join(c.wordings),
             "finding": c.finding(), "compared": c.compared} for c in CONTRADICTIONS]
