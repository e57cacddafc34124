"""The studies' published figures as data: who measured what, how, in which unit, and where the
lab stores the figure it compares them with.

Published figures are the studies' own, on their hardware. perflab reproduces the shape and the
ratios: each claim names a baseline (the study's reference framework) so a reader can compare
"Q-JVM / Spring Boot" published with the same ratio measured here.
"""

from __future__ import annotations

from dataclasses import dataclass

# The studies' names for what they measured -> the lab's app/mode.
TARGETS = {
    "A": "spring-boot/jvm",  # LAB-2020 "Framework A" (Spring Boot on Tomcat)
    "Spring": "spring-boot/jvm",  # KT-2020
    "Q-JVM": "quarkus/jvm",
    "Q-native": "quarkus/native",
    "Go": "go-reference/native",
    "Thorntail": "thorntail/jvm",
}


@dataclass(frozen=True)
class Study:
    key: str
    title: str
    setting: str
    baseline: str  # the label every ratio of this study divides by


STUDIES = {
    "RT-2019": Study("RT-2019", '"Quarkus Runtime Performance" (2019)',
                     "fruits CRUD on PostgreSQL; Quarkus 0.18 JVM and native vs Thorntail 2.4; "
                     "wrk from a separate machine over 10 GbE, 1..40 connections", "Thorntail"),
    "LAB-2020": Study("LAB-2020", 'analyst "Quarkus lab validation" (2020)',
                      "todo app on PostgreSQL; Quarkus JVM and native vs Framework A (Spring Boot on "
                      "Tomcat); cgroups of 4 cores / 256 MB (lab 1.1: 1 core / 500 MB), -Xmx64m", "A"),
    "KT-2020": Study("KT-2020", '"Spring Boot 2 vs Quarkus" blog (2020, Kotlin)',
                     "data-object API on H2, pool 10..100; 11 launches; wrk -t2 -c10", "Spring"),
}


@dataclass(frozen=True)
class Where:
    """Where the lab keeps the figure a claim compares with.

    ``point`` is a point's exact label, or "*" for any. For sweeps, ``path`` selects the plan's
    series on that path and ``connections`` the point (both from the points' parameters); ``best`` takes the point with the best
    median (a study's "peak")."""

    scenario: str
    metric: str
    point: str = ""
    path: str = ""
    connections: int | None = None
    best: bool = False

    def describe(self) -> str:
        if self.path:
            at = (f"c={self.connections}" if self.connections
                  else "the best connection count" if self.best else "all points")
            return f"{self.scenario} {self.metric} on {self.path} at {at}"
        if self.point.endswith("=*"):
            return f"{self.scenario} {self.metric} at {self.point[:-1]}N (the plan's)"
        if self.point.endswith("*"):
            return f"{self.scenario} {self.metric}" + (f" at {self.point[:-1]}..." if self.point != "*" else "")
        return f"{self.scenario} {self.metric}" + (f" at {self.point}" if self.point else "")


@dataclass(frozen=True)
class Claim:
    """A group of published figures measured the same way, by one study."""

    key: str
    study: str
    what: str
    unit: str
    where: Where
    figures: tuple[tuple[str, float], ...]  # (the study's label, published value)
    higher_is_better: bool
    note: str = ""

    @property
    def baseline(self) -> str:
        return STUDIES[self.study].baseline

    def value(self, label: str) -> float | None:
        return next((v for lbl, v in self.figures if lbl == label), None)

    def has_baseline(self) -> bool:
        return self.value(self.baseline) is not None


def _c(key, study, what, unit, where, figures, higher_is_better, note=""):
    return Claim(key, study, what, unit, where, tuple(figures.items()), higher_is_better, note)


CLAIMS: list[Claim] = [
    # --- startup
    _c("rt2019-start", "RT-2019", "start time (to first response)", "ms", Where("startup", "ttfr_ms", "warm"),
       {"Thorntail": 8764, "Q-JVM": 1629, "Q-native": 18}, False),
    _c("lab2020-ttfr", "LAB-2020", "3.1 time to first response, median (bare metal)", "ms",
       Where("startup", "ttfr_ms", "warm"), {"A": 9649, "Q-JVM": 4455, "Q-native": 830}, False),
    _c("kt2020-launch", "KT-2020", "launch time from the log (11 attempts)", "ms",
       Where("startup", "framework_start_ms", "warm"), {"Spring": 2800, "Q-JVM": 1800, "Q-native": 13}, False,
       "published as ~2.7-2.9 s, ~1.7-1.9 s and ~0.013 s: midpoints shown"),
    _c("kt2020-first-launch", "KT-2020", "first launch from the log", "ms",
       Where("startup", "framework_start_ms", "cold"), {"Spring": 3800, "Q-JVM": 3700, "Q-native": 890}, False),
    # --- memory
    _c("lab2020-rss-first", "LAB-2020", "1.1 RSS after the first request", "MB",
       Where("startup", "rss_after_first_mb", "warm"), {"A": 187, "Q-JVM": 151, "Q-native": 21}, False,
       "the study's lab 1.1 ran in 1 core / 500 MB"),
    _c("rt2019-max-rss", "RT-2019", "max RSS under load", "MB", Where("memory", "rss_peak_mb", "*"),
       {"Thorntail": 651, "Q-JVM": 414, "Q-native": 122}, False),
    _c("kt2020-rest", "KT-2020", "memory at rest", "MB", Where("startup", "rss_rest_mb", "warm"),
       {"Spring": 287, "Q-JVM": 97, "Q-native": 6.5}, False),
    _c("kt2020-max", "KT-2020", "max memory under load", "MB", Where("memory", "rss_peak_mb", "*"),
       {"Spring": 602, "Q-JVM": 418, "Q-native": 283}, False),
    _c("lab2020-peak-rss", "LAB-2020", "1.3 peak RSS under load (GET todos, 8..56 connections)", "MB",
       Where("memory", "rss_peak_mb", "*"), {"A": 264, "Q-JVM": 214, "Q-native": 80}, False,
       "here: the plan's memory load path and connection count"),
    _c("lab2020-rps-per-mb", "LAB-2020", "1.3 req/s per MB of peak RSS", "req/s/MB",
       Where("memory", "rps_per_mb", "*"), {"A": 14, "Q-JVM": 30, "Q-native": 41}, True),
    # --- sweep
    _c("rt2019-rps-40", "RT-2019", "throughput at 40 connections (GET /fruits)", "req/s",
       Where("sweep", "rps", path="/fruits", connections=40),
       {"Thorntail": 32391, "Q-JVM": 76488, "Q-native": 44841}, True),
    _c("rt2019-mean-40", "RT-2019", "mean latency at 40 connections (GET /fruits)", "ms",
       Where("sweep", "latency_mean_ms", path="/fruits", connections=40),
       {"Thorntail": 1.69, "Q-JVM": 0.91, "Q-native": 2.43}, False),
    _c("rt2019-max-40", "RT-2019", "max latency at 40 connections (GET /fruits)", "ms",
       Where("sweep", "latency_max_ms", path="/fruits", connections=40),
       {"Thorntail": 143.49, "Q-JVM": 63.71, "Q-native": 48.37}, False),
    _c("lab2020-peak-rps", "LAB-2020", "1.3 peak throughput (GET todos, 8..56 connections)", "req/s",
       Where("sweep", "rps", path="/todos", best=True), {"A": 3697, "Q-JVM": 6396, "Q-native": 3266}, True),
    # --- write
    _c("kt2020-get", "KT-2020", "GET /data/{key}, 10 s, wrk -t2 -c10", "req/s", Where("write", "rps", "GET /data/{key}"),
       {"Spring": 3240, "Q-JVM": 1020, "Q-native": 2178}, True),
    _c("kt2020-post", "KT-2020", "POST /data, 10 s, wrk -t2 -c10", "req/s", Where("write", "rps", "POST /data"),
       {"Spring": 1623, "Q-JVM": 644, "Q-native": 1115}, True),
    # --- density
    _c("rt2019-density", "RT-2019", "processes per 2048 MB", "count", Where("density", "instances", "*"),
       {"Thorntail": 3, "Q-JVM": 4, "Q-native": 16}, True),
    _c("rt2019-density-rps", "RT-2019", "throughput of those processes (per-process req/s x processes)", "req/s",
       Where("density", "projected_rps", "*"), {"Thorntail": 111246, "Q-JVM": 308472, "Q-native": 717456}, True),
    _c("lab2020-10-pods", "LAB-2020", "1.2A memory of 10 pods", "MB", Where("density", "rss_10_instances_mb", "*"),
       {"A": 1594, "Q-JVM": 1098, "Q-native": 194}, False),
    _c("lab2020-pods-2gb", "LAB-2020", "1.2B pods in 2 GB", "count", Where("density", "instances", "*"),
       {"A": 12, "Q-JVM": 18, "Q-native": 98}, True),
    # --- scaleup, coldstart
    _c("lab2020-scaleup", "LAB-2020", "2.1 time to scale 0 -> 1 (Kubernetes)", "ms", Where("scaleup", "ready_ms", "warm"),
       {"A": 49960, "Q-JVM": 30359, "Q-native": 9935}, False, "here: launch to readiness, no Kubernetes"),
    _c("lab2020-coldstart", "LAB-2020", "3.2 serverless time to first response minus the Go reference's",
       "ms", Where("coldstart", "ttfr_minus_reference_ms", "*"), {"A": 32236, "Q-JVM": 10337, "Q-native": 51}, False,
       "the Go reference itself answered after 9,534 ms there"),
    # --- soak
    _c("kt2020-soak-get", "KT-2020", "15 min warmed run, GET", "req/s", Where("soak", "rps", ""), {"Spring": 7137}, True,
       "here: the plan's soak path"),
    _c("kt2020-soak-post", "KT-2020", "15 min warmed run, POST", "req/s", Where("soak", "rps", "POST /data"),
       {"Spring": 2779}, True, "the soak scenario here runs one GET path: no POST figure"),
    _c("rt2019-soak", "RT-2019", "native soak: requests served in >3 h, stable", "count", Where("soak", "requests", ""),
       {"Q-native": 51.89e6}, True),
    # --- footprint
    _c("kt2020-artifact", "KT-2020", "artifact size", "MB", Where("footprint", "artifact_mb", ""),
       {"Spring": 26.9, "Q-JVM": 23.4, "Q-native": 47.4}, False),
]

# LAB-2020's cost model: node savings of an estate of 300 services against Framework A.
PUBLISHED_SAVINGS = {"Q-JVM": 0.37, "Q-native": 0.64}
COST_STUDY = "LAB-2020"


def target_of(label: str) -> str:
    return TARGETS[label]
