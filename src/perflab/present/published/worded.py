"""What the studies state in words rather than in tables: ratios ("~1/8 that of Framework A",
"roughly 60 %"), and figures a sentence gives (lab 3.2's platform delay). Each one keeps the value
the words give, where the text prints it, and what the study's own transcribed figures give for
it, so a reader sees both; where the two disagree beyond the words' own rounding, the
disagreement is listed among the contradictions (a test holds them to that).

A ratio is the label's figure over its study's baseline (Framework A for LAB-2020), whatever the
words say: "reduced by ~89 %" is a ratio of 0.11, "five times faster" one of 1/5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from perflab.present.published.claims import PUBLISHED_SAVINGS, claim
from perflab.present.published.lab2020_figures import LAB20_1_3_TABLE
from perflab.present.published.studies import STUDIES

RATIO = "ratio"


@dataclass(frozen=True)
class Worded:
    key: str
    study: str
    what: str
    label: str  # the study's label the value is of
    wording: str  # the words, in short, as printed
    value: tuple[float, ...]  # what the words give: one value, or (low, high) for a range
    passage: tuple[str, ...]  # strings found in order in the study's text, the last holding the words
    of_figures: Callable[[], tuple[float, ...]] | None = None  # the same from the study's own figures
    unit: str = RATIO
    rounding: float = 0.01  # how far (relative) the figures may lie from the value: the words' precision
    claim: str = ""  # the claim whose figures it concerns

    def stated(self) -> str:
        shown = " to ".join(f"{v:.3g}" for v in self.value)
        if self.unit != RATIO:
            return f"{shown} {self.unit}"
        return f"{self.label} / {STUDIES[self.study].baseline} = {shown}"

    def figures_give(self) -> str:
        if self.of_figures is None:
            return "no figure of the study gives it"
        return ", ".join(f"{v:.3f}" for v in self.of_figures())

    def agrees(self) -> bool | None:
        """Whether every value the figures give lies within the words' range and rounding."""
        if self.of_figures is None:
            return None
        low, high = min(self.value) * (1 - self.rounding), max(self.value) * (1 + self.rounding)
        return all(low <= v <= high for v in self.of_figures())


def _over_a(key: str, label: str) -> Callable[[], tuple[float, ...]]:
    return lambda: (claim(key).value(label) / claim(key).value("A"),)


def _table_1_3(label: str, *connections: int) -> Callable[[], tuple[float, ...]]:
    i = ("A", "Q-JVM", "Q-native").index(label)
    return lambda: tuple(LAB20_1_3_TABLE[c][i] / LAB20_1_3_TABLE[c][0] for c in connections)


def _spent(label: str) -> Callable[[], tuple[float, ...]]:
    return lambda: (1 - PUBLISHED_SAVINGS[label],)


def _of_a(key: str, what: str, label: str, wording: str, value: tuple[float, ...], passage: tuple[str, ...], *,
          claim: str, rounding: float = 0.01) -> Worded:
    """A LAB-2020 ratio to Framework A of the figures of one of its claims."""
    return Worded(key, "LAB-2020", what, label, wording, value, passage, _over_a(claim, label), rounding=rounding,
                  claim=claim)


_1_3 = "SCENARIO 1.3 – QUARKUS MEMORY USAGE UNDER LOAD CONTINUED"
_3_2 = "Result: Time to First Response (seconds)²"

WORDED: list[Worded] = [
    # lab 1.1, memory after the first request
    _of_a("lab2020-1.1-native", "1.1 memory after the first request", "Q-native",
          'reduced by "~89%"', (0.11,), ("Memory (RSS) usage after the first request", "by ~89% in comparison"),
          rounding=0.05, claim="lab2020-rss-first"),
    _of_a("lab2020-1.1-jvm", "1.1 memory after the first request", "Q-JVM",
          'reduced by "~20%"', (0.80,), ("Memory (RSS) usage after the first request", "by ~20% in comparison"),
          rounding=0.02, claim="lab2020-rss-first"),
    # lab 1.2A, 10 pods
    _of_a("lab2020-1.2A-native", "1.2A memory of 10 pods", "Q-native", '"~1/8" of A\'s', (1 / 8,),
          ("Memory utilization after starting 10 pods", "~1/8 that of Framework A"),
          rounding=0.05, claim="lab2020-10-pods"),
    _of_a("lab2020-1.2A-jvm", "1.2A memory of 10 pods", "Q-JVM", '"~2/3" of A\'s', (2 / 3,),
          ("Memory utilization after starting 10 pods", "~2/3 that of Framework A"),
          rounding=0.05, claim="lab2020-10-pods"),
    _of_a("lab2020-summary-1.1-native", "1.1 memory after the first request (summary)", "Q-native",
          'reduced by "~90%"', (0.10,), ("Start-Up Memory Usage", "by ~90% in comparison"),
          rounding=0.05, claim="lab2020-rss-first"),
    # lab 1.2B, pods in 2 GB
    _of_a("lab2020-1.2B-native", "1.2B pods in 2 GB", "Q-native", '"~8x more pods"', (8.0,),
          ("The number of pods that can be started with Kubernetes", "~8x more pods"),
          rounding=0.07, claim="lab2020-pods-2gb"),
    _of_a("lab2020-1.2B-jvm", "1.2B pods in 2 GB", "Q-JVM", '"~1.5x more pods"', (1.5,),
          ("The number of pods that can be started with Kubernetes", "~1.5x more pods"),
          rounding=0.04, claim="lab2020-pods-2gb"),
    _of_a("lab2020-1.2B-native-times", "1.2B pods in 2 GB (its significance)", "Q-native",
          '"roughly 8 times as many"', (8.0,),
          ("SCENARIO 1.2B – DEPLOYMENT DENSITY CONTINUED", "roughly 8 times as many"),
          rounding=0.07, claim="lab2020-pods-2gb"),
    _of_a("lab2020-1.2B-jvm-times", "1.2B pods in 2 GB (its significance)", "Q-JVM",
          '"roughly 1.25 times as many"', (1.25,),
          ("SCENARIO 1.2B – DEPLOYMENT DENSITY CONTINUED", "roughly 1.25 times as many"),
          rounding=0.004, claim="lab2020-pods-2gb"),
    # lab 1.3, throughput per connection count (its table) and per MB
    Worded("lab2020-1.3-jvm-32", "LAB-2020", "1.3 throughput at 32 connections", "Q-JVM", '"1.5"', (1.5,),
           (_1_3, "For 32 concurrent connections", "Framework A throughput was 1.5."),
           _table_1_3("Q-JVM", 32), rounding=0.034, claim="lab2020-peak-rps"),
    Worded("lab2020-1.3-jvm-40-56", "LAB-2020", "1.3 throughput at 40 to 56 connections", "Q-JVM",
           '"between 1.7 and 1.8"', (1.7, 1.8), (_1_3, "Between 40 and 56", "ranged between 1.7 and 1.8"),
           _table_1_3("Q-JVM", 40, 48, 56), rounding=0.03, claim="lab2020-peak-rps"),
    Worded("lab2020-1.3-native-32", "LAB-2020", "1.3 throughput at 32 connections", "Q-native", '"0.9"', (0.9,),
           (_1_3, "Quarkus Native vs. Framework A", "For 32 concurrent connections", "Framework A throughput was 0.9."),
           _table_1_3("Q-native", 32), rounding=0.056, claim="lab2020-peak-rps"),
    Worded("lab2020-1.3-native-40-56", "LAB-2020", "1.3 throughput at 40 to 56 connections", "Q-native",
           '"between 0.85 and 0.9"', (0.85, 0.9),
           (_1_3, "Quarkus Native vs. Framework A", "ranged between 0.85 and 0.9"),
           _table_1_3("Q-native", 40, 48, 56), rounding=0.01, claim="lab2020-peak-rps"),
    _of_a("lab2020-1.3-per-mb-jvm", "1.3 req/s per MB, its comparison column", "Q-JVM", '"113%" more',
          (2.13,), ("Result as req/sec/MB", "Quarkus on JVM 30 req/sec/MB 113%"),
          claim="lab2020-rps-per-mb"),
    _of_a("lab2020-1.3-per-mb-native", "1.3 req/s per MB, its comparison column", "Q-native",
          '"193%" more', (2.93,), ("Result as req/sec/MB", "Quarkus on Native 41 req/sec/MB 193%"),
          claim="lab2020-rps-per-mb"),
    # the executive summary on lab 1.3's peak memory
    _of_a("lab2020-summary-peak-jvm", "1.3 memory at peak load (summary)", "Q-JVM", '"81%"', (0.81,),
          ("Throughput Given Increasing Load", "Quarkus JVM used 81% of the memory"),
          claim="lab2020-peak-rss"),
    _of_a("lab2020-summary-peak-native", "1.3 memory at peak load (summary)", "Q-native", '"~1/3"',
          (1 / 3,), ("Throughput Given Increasing Load", "Quarkus Native used ~1/3 of the memory"),
          rounding=0.1, claim="lab2020-peak-rss"),
    # lab 2.1, time to scale
    _of_a("lab2020-2.1-jvm", "2.1 time to scale 0 -> 1", "Q-JVM", '"roughly 60%"', (0.60,),
          ("Result: Time to scale (seconds)", "roughly 60% of the time"),
          rounding=0.02, claim="lab2020-scaleup"),
    _of_a("lab2020-2.1-native", "2.1 time to scale 0 -> 1", "Q-native", '"roughly 20%"', (0.20,),
          ("Result: Time to scale (seconds)", "roughly 20% of the time"),
          rounding=0.02, claim="lab2020-scaleup"),
    _of_a("lab2020-2.1-native-times", "2.1 time to scale 0 -> 1", "Q-native",
          '"roughly five times faster"', (1 / 5,), ("Result: Time to scale (seconds)", "roughly five times faster"),
          rounding=0.02, claim="lab2020-scaleup"),
    # lab 3.1, time to first response on bare metal, and 3.2's significance that quotes it
    _of_a("lab2020-3.1-native", "3.1 time to first response", "Q-native", '"8.6%"', (0.086,),
          ("Result: Time to First Response (seconds)", "was 8.6% the start-up time"),
          claim="lab2020-ttfr"),
    _of_a("lab2020-3.1-jvm", "3.1 time to first response", "Q-JVM", '"46.2%"', (0.462,),
          ("Result: Time to First Response (seconds)", "was 46.2% that of Framework A"),
          claim="lab2020-ttfr"),
    _of_a("lab2020-3.1-jvm-reduced", "3.1 start-up time (3.2's significance)", "Q-JVM",
          'reduced by "53.8%"', (1 - 0.538,), (_3_2, "Significance", "by 53.8% in the case of Quarkus JVM"),
          claim="lab2020-ttfr"),
    _of_a("lab2020-3.1-native-reduced", "3.1 start-up time (3.2's significance)", "Q-native",
          'reduced by "91.4%"', (1 - 0.914,), (_3_2, "Significance", "91.4% for Quarkus Native"),
          claim="lab2020-ttfr"),
    _of_a("lab2020-3.1-native-times", "3.1 time to first response", "Q-native",
          '"roughly 12 times faster"', (1 / 12,),
          ("Result: Time to First Response (seconds)", "roughly 12 times faster"),
          rounding=0.05, claim="lab2020-ttfr"),
    _of_a("lab2020-3.1-jvm-times", "3.1 time to first response", "Q-JVM", '"two times faster"', (1 / 2,),
          ("Result: Time to First Response (seconds)", "two times faster"),
          rounding=0.1, claim="lab2020-ttfr"),
    # lab 3.2, time to first response in a serverless environment (native compared as its runs' median)
    _of_a("lab2020-3.2-jvm", "3.2 time to first response", "Q-JVM", '"roughly 47.6%"', (0.476,),
          (_3_2, "roughly 47.6% of the time"), claim="lab2020-coldstart-ttfr"),
    _of_a("lab2020-3.2-native", "3.2 time to first response", "Q-native", '"22.9%"', (0.229,),
          (_3_2, "roughly 22.9% of the time"), claim="lab2020-coldstart-ttfr"),
    _of_a("lab2020-3.2-jvm-times", "3.2 time to first response", "Q-JVM", '"about two times faster"',
          (1 / 2,), (_3_2, "about two times faster"), rounding=0.1,
          claim="lab2020-coldstart-ttfr"),
    _of_a("lab2020-3.2-native-times", "3.2 time to first response", "Q-native", '"4.4 times faster"',
          (1 / 4.4,), (_3_2, "4.4 times faster"), rounding=0.012,
          claim="lab2020-coldstart-ttfr"),
    _of_a("lab2020-summary-3.2-native", "3.2 time to first response (summary)", "Q-native",
          '"~4.5x faster"', (1 / 4.5,), ("Start-Up Time", "Serverless", "~4.5x faster"),
          rounding=0.03, claim="lab2020-coldstart-ttfr"),
    # lab 3.2's platform delay, which the Go reference stands for
    Worded("lab2020-3.2-delay-footnote", "LAB-2020", "3.2 the platform's start-up delay (footnote)", "all",
           '"9.0 to 9.5 seconds"', (9.0, 9.5), (_3_2, "delay of 9.0 to 9.5 seconds"), unit="s",
           claim="lab2020-coldstart"),
    Worded("lab2020-3.2-delay-appendix", "LAB-2020", "3.2 the platform's start-up delay (appendix)", "all",
           '"approximately 10 seconds"', (10.0,), ("Code and configuration for Lab 3.2", "approximately 10 seconds"),
           unit="s", claim="lab2020-coldstart"),
    # the cost example: what $100K a year for Framework A becomes
    Worded("lab2020-cost-jvm", "LAB-2020", "cost example: $100K a year for A becomes", "Q-JVM", '"$63K" of "$100K"',
           (0.63,),
           ("Cost Savings Resulting from Container Utilization", "\\$100K USD annually", "\\$63K with Quarkus JVM"),
           _spent("Q-JVM")),
    Worded("lab2020-cost-native", "LAB-2020", "cost example: $100K a year for A becomes", "Q-native",
           '"$36K" of "$100K"', (0.36,),
           ("Cost Savings Resulting from Container Utilization", "\\$100K USD annually", "\\$36K with Quarkus Native"),
           _spent("Q-native")),
]


def worded_rows() -> list[dict[str, str]]:
    """The worded values as the reports list them."""
    return [{"key": w.key, "study": w.study, "what": w.what, "wording": w.wording, "stated": w.stated(),
             "figures": w.figures_give()} for w in WORDED]
