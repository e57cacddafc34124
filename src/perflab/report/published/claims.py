"""The studies' published figures as data: who measured what, how, in which unit, where in the
study it is printed, and where the lab stores the figure it compares them with.

Published figures are the studies' own, on their hardware. perflab reproduces the shape and the
ratios: each claim names a baseline (the study's reference framework) so a reader can compare
"Q-JVM / Spring Boot" published with the same ratio measured here. Figures are transcribed as
printed; where a study prints a value its own raw values contradict, the claim keeps the printed
value in ``printed`` and compares with the value the raw data gives (see conflicts.py).
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
    versions: str  # the framework and JDK versions the study names
    environment: str = "not transcribed (not in the sources available here)"  # its machines and services

    def facts(self) -> list[str]:
        """The study's versions and machines, as the report's study method lists them."""
        return [f"the study's versions: {self.versions}", f"the study's environment: {self.environment}"]


STUDIES = {
    "RT-2019": Study("RT-2019", '"Quarkus Runtime Performance" (2019)',
                     "fruits CRUD on PostgreSQL; Quarkus 0.18 JVM and native vs Thorntail 2.4; "
                     "wrk from a separate machine over 10 GbE, 1..40 connections", "Thorntail",
                     "Quarkus 0.18.0 (JVM and native), Thorntail 2.4.0.Final; Java HotSpot(TM) 64-Bit Server VM "
                     "25.191-b12 (JDK 8u191); PostgreSQL 10.5 (postgres:10.5 in docker)",
                     "app and database each in a docker container on the system under test: 32 x Intel Xeon "
                     "E5-2640 v3 @ 2.60GHz, RHEL 7.6, 262 GB, 10G Ethernet; wrk on the client: 24 x Intel Xeon "
                     "E5-2640 @ 2.80GHz, RHEL 7.6, 64 GB"),
    "LAB-2020": Study("LAB-2020", 'analyst "Quarkus lab validation" (2020)',
                      "todo app on PostgreSQL; Quarkus JVM and native vs Framework A (Spring Boot on "
                      "Tomcat); cgroups of 4 cores / 256 MB (lab 1.1: 1 core / 500 MB), -Xmx64m", "A",
                      "not transcribed (the framework and JDK versions are not in the sources available here)"),
    "KT-2020": Study("KT-2020", '"Spring Boot 2 vs Quarkus" blog (2020, Kotlin)',
                     "data-object API on H2, pool 10..100; 11 launches; wrk -t2 -c10", "Spring",
                     "Spring Boot 2, Quarkus (2020); exact versions and JDK not transcribed"),
}


@dataclass(frozen=True)
class Where:
    """Where the lab keeps the figure a claim compares with.

    ``point`` is a point's exact label, or "*" for any. For sweeps, ``path`` selects the plan's
    series on that path and ``connections`` the point (both from the points' parameters); ``best`` takes the point with the best
    median (a study's "peak"). ``with_first``: the first (cold) launch joins the warm ones, for a
    study whose median included its first run."""

    scenario: str
    metric: str
    point: str = ""
    path: str = ""
    connections: int | None = None
    best: bool = False
    with_first: bool = False

    def describe(self) -> str:
        if self.path:
            at = (f"c={self.connections}" if self.connections
                  else "the best connection count" if self.best else "all points")
            return f"{self.scenario} {self.metric} on {self.path} at {at}"
        if self.with_first:
            return f"{self.scenario} {self.metric} over all launches, the first included"
        if self.point.endswith("=*"):
            return f"{self.scenario} {self.metric} at {self.point[:-1]}N (the plan's)"
        if self.point.endswith("*"):
            return f"{self.scenario} {self.metric}" + (f" at {self.point[:-1]}..." if self.point != "*" else "")
        return f"{self.scenario} {self.metric}" + (f" at {self.point}" if self.point else "")


@dataclass(frozen=True)
class Claim:
    """A group of published figures measured the same way, by one study.

    ``source``: where the study prints them (a table, a lab, the text); ``method``: how it
    measured them. ``stated``: ratios to the baseline as the study states them in words (they
    replace the ratios of the figures); ``raw``: every value the study lists behind a figure;
    ``printed``: a figure as printed where it differs from the one compared (its own raw values
    contradict it). ``ratios`` is False when the study draws no ratio from these figures."""

    key: str
    study: str
    what: str
    unit: str
    where: Where
    figures: tuple[tuple[str, float], ...]  # (the study's label, published value)
    higher_is_better: bool
    note: str = ""
    source: str = ""
    method: str = ""
    stated: tuple[tuple[str, float], ...] = ()
    raw: tuple[tuple[str, tuple[float, ...]], ...] = ()
    printed: tuple[tuple[str, float], ...] = ()
    ratios: bool = True

    @property
    def baseline(self) -> str:
        return STUDIES[self.study].baseline

    def value(self, label: str) -> float | None:
        return next((v for lbl, v in self.figures if lbl == label), None)

    def has_baseline(self) -> bool:
        return self.ratios and self.value(self.baseline) is not None

    def provenance(self) -> str:
        """Where the study prints the figures, how it measured them, and its raw values."""
        parts = [f"printed in: {self.source or 'not transcribed (the section is not in the sources available here)'}"]
        if self.method:
            parts.append(f"method: {self.method}")
        for label, values in self.raw:
            parts.append(f"{label}'s runs as listed: " + ", ".join(f"{v:g}" for v in values))
        for label, value in self.printed:
            parts.append(f"{label} printed as {value:g} {self.unit}, compared as {self.value(label):g} (see the "
                         f"contradictions)")
        for label, ratio in self.stated:
            parts.append(f"{label} / {self.baseline} stated as {ratio:.1%}")
        return "; ".join(parts)

    def published_ratio(self, label: str) -> float | None:
        """The ratio label / baseline the study claims: as stated in words, else of its figures."""
        stated = dict(self.stated).get(label)
        if stated is not None:
            return stated
        base = self.value(self.baseline)
        value = self.value(label)
        return value / base if base and value is not None else None


def _c(key, study, what, unit, where, figures, higher_is_better, note="", **more):
    tupled = {k: tuple(v.items()) for k, v in more.items() if isinstance(v, dict)}
    return Claim(key, study, what, unit, where, tuple(figures.items()), higher_is_better, note,
                 **{**more, **tupled})


_LAB20_3_2_NATIVE = (9237.0, 9076.0, 9585.0)  # the three serverless runs the study lists for native

CLAIMS: list[Claim] = [
    # --- startup
    _c("rt2019-start", "RT-2019", "start time (to first response)", "ms", Where("startup", "ttfr_ms", "warm"),
       {"Thorntail": 8764, "Q-JVM": 1629, "Q-native": 18}, False,
       source="Application Start Time", method="process start to the first served request"),
    _c("lab2020-ttfr", "LAB-2020", "3.1 time to ready, median (bare metal)", "ms",
       Where("startup", "ready_ms", "warm", with_first=True), {"A": 9649, "Q-JVM": 4455, "Q-native": 830}, False,
       "the study probed the health endpoint every 0.1 s, so its figure is time to ready (not the first "
       "response on /hello); its median includes the first run", source="lab 3.1",
       method="launch, health endpoint probed every 0.1 s until it answers; median over the runs, first included"),
    _c("kt2020-launch", "KT-2020", "launch time from the log (median of the 10 launches after the first)", "ms",
       Where("startup", "framework_start_ms", "warm"), {"Spring": 2789, "Q-JVM": 1765, "Q-native": 13.5}, False,
       "the study lists all 11 launches per app; the medians of the 10 after the first are shown (the prose rounds "
       "them to ~2.7-2.9 s, ~1.7-1.9 s and ~0.013 s)", source="the 11 launches listed per app",
       method="the framework's own start line in the log; 11 launches, the first apart"),
    _c("kt2020-first-launch", "KT-2020", "first launch from the log", "ms",
       Where("startup", "framework_start_ms", "cold"), {"Spring": 3800, "Q-JVM": 3700, "Q-native": 890}, False,
       source="the 11 launches listed per app", method="the first of the 11 launches"),
    # --- memory
    _c("lab2020-rss-first", "LAB-2020", "1.1 RSS after the first request", "MB",
       Where("startup", "rss_after_first_mb", "warm"), {"A": 187, "Q-JVM": 151, "Q-native": 21}, False,
       "the study's lab 1.1 ran in 1 core / 500 MB", source="lab 1.1", method="RSS after the first request"),
    _c("rt2019-max-rss", "RT-2019", "max RSS under load", "MB", Where("memory", "rss_peak_mb", "*"),
       {"Thorntail": 651, "Q-JVM": 414, "Q-native": 122}, False,
       source="Maximum Memory Usage",
       method="ps -o rss -p <PID>, the highest RSS during the throughput runs"),
    _c("kt2020-rest", "KT-2020", "memory at rest (docker stats)", "MB", Where("startup", "cgroup_rest_mb", "warm"),
       {"Spring": 287, "Q-JVM": 97, "Q-native": 6.5}, False,
       "docker stats reports the container's cgroup memory, not RSS: compared with the cgroup's memory at rest",
       method="docker stats (cgroup memory) at rest"),
    _c("kt2020-max", "KT-2020", "max memory under load (docker stats)", "MB", Where("memory", "cgroup_peak_mb", "*"),
       {"Spring": 602, "Q-JVM": 418, "Q-native": 283}, False,
       "docker stats reports the container's cgroup memory, not RSS: compared with the cgroup's peak",
       method="docker stats (cgroup memory), highest value under load"),
    _c("lab2020-peak-rss", "LAB-2020", "1.3 peak RSS under load (GET todos, 8..56 connections)", "MB",
       Where("memory", "rss_peak_mb", "*"), {"A": 264, "Q-JVM": 214, "Q-native": 80}, False,
       "here: the plan's memory load path and connection count", source="lab 1.3",
       method="peak RSS over the load runs at 8..56 connections"),
    _c("lab2020-rps-per-mb", "LAB-2020", "1.3 req/s per MB of peak RSS", "req/s/MB",
       Where("memory", "rps_per_mb", "*"), {"A": 14, "Q-JVM": 30, "Q-native": 41}, True,
       source="lab 1.3", method="peak throughput / peak RSS"),
    # --- sweep
    _c("rt2019-rps-40", "RT-2019", "throughput at 40 connections (GET /fruits)", "req/s",
       Where("sweep", "rps", path="/fruits", connections=40),
       {"Thorntail": 32391, "Q-JVM": 76488, "Q-native": 44841}, True,
       source="Table 1, 40-connection row (the whole table on the sweep chart)", method="wrk against GET /fruits from a separate machine"),
    _c("rt2019-mean-40", "RT-2019", "mean latency at 40 connections (GET /fruits)", "ms",
       Where("sweep", "latency_mean_ms", path="/fruits", connections=40),
       {"Thorntail": 1.69, "Q-JVM": 0.91, "Q-native": 2.43}, False,
       source="Table 2, 40-connection row (the whole table on the sweep chart)", method="wrk's mean latency"),
    _c("rt2019-max-40", "RT-2019", "max latency at 40 connections (GET /fruits)", "ms",
       Where("sweep", "latency_max_ms", path="/fruits", connections=40),
       {"Thorntail": 143.49, "Q-JVM": 63.71, "Q-native": 48.37}, False,
       source="Table 2, 40-connection row (the whole table on the sweep chart)", method="wrk's max latency"),
    _c("lab2020-peak-rps", "LAB-2020", "1.3 peak throughput (GET todos, 8..56 connections)", "req/s",
       Where("sweep", "rps", path="/todos", best=True), {"A": 3697, "Q-JVM": 6396, "Q-native": 3266}, True,
       source="lab 1.3", method="the best of the load runs at 8..56 connections"),
    # --- write
    _c("kt2020-get", "KT-2020", "GET /data/{key}, 10 s, wrk -t2 -c10", "req/s", Where("write", "rps", "GET /data/{key}"),
       {"Spring": 3240, "Q-JVM": 1020, "Q-native": 2178}, True, method="wrk -t2 -c10 -d10s"),
    _c("kt2020-post", "KT-2020", "POST /data, 10 s, wrk -t2 -c10", "req/s", Where("write", "rps", "POST /data"),
       {"Spring": 1623, "Q-JVM": 644, "Q-native": 1115}, True, method="wrk -t2 -c10 -d10s, a POST script"),
    # --- density
    _c("rt2019-density", "RT-2019", "processes per 2048 MB", "count", Where("density", "instances", "*"),
       {"Thorntail": 3, "Q-JVM": 4, "Q-native": 16}, True,
       "a projection: the study divided 2048 MB by its max RSS and rounded down, it did not start them",
       source="the 2048 MB table", method="⌊2048 MB / max RSS⌋"),
    _c("rt2019-density-rps", "RT-2019", "throughput of those processes (per-process req/s x processes)", "req/s",
       Where("density", "projected_rps", "*"), {"Thorntail": 111246, "Q-JVM": 308472, "Q-native": 717456}, True,
       "per process: each one's max req/s over Table 1 (see RT-2019's 2048 MB table)", source="the 2048 MB table",
       method="processes per 2048 MB x one process's max req/s"),
    _c("lab2020-10-pods", "LAB-2020", "1.2A memory of 10 pods", "MB", Where("density", "rss_10_instances_mb", "*"),
       {"A": 1594, "Q-JVM": 1098, "Q-native": 194}, False, source="lab 1.2A", method="10 pods on Kubernetes"),
    _c("lab2020-pods-2gb", "LAB-2020", "1.2B pods in 2 GB", "count", Where("density", "instances", "*"),
       {"A": 12, "Q-JVM": 18, "Q-native": 98}, True,
       "the prose gives two different ratios for Quarkus JVM (see the contradictions)", source="lab 1.2B",
       method="pods started in a 2 GB namespace until one failed"),
    # --- scaleup, coldstart
    _c("lab2020-scaleup", "LAB-2020", "2.1 time to scale 0 -> 1 (Kubernetes)", "ms",
       Where("scaleup", "ready_ms", "warm", with_first=True),
       {"A": 49960, "Q-JVM": 30359, "Q-native": 9935}, False,
       "here: launch to readiness, no Kubernetes; the study's median includes the first run", source="lab 2.1",
       method="scale a deployment 0 -> 1 until ready; 3 runs, median, first included"),
    _c("lab2020-coldstart-ttfr", "LAB-2020", "3.2 serverless time to first response, median", "ms",
       Where("coldstart", "ttfr_ms", "*"), {"A": 41770, "Q-JVM": 19871, "Q-native": 9237}, False,
       "the study's ratios of raw time to first response: Q-JVM \"roughly 47.6 %\" and Q-native \"22.9 %\" of A; "
       "the Go reference answered after 9,534 ms (here: each pair's reference_ttfr_ms)",
       source="lab 3.2", method="serverless cold start to the first response; 3 runs, median",
       stated={"Q-JVM": 0.476, "Q-native": 0.229}, raw={"Q-native": _LAB20_3_2_NATIVE},
       printed={"Q-native": 9585}),
    _c("lab2020-coldstart", "LAB-2020", "3.2 time to first response minus the Go reference's",
       "ms", Where("coldstart", "ttfr_minus_reference_ms", "*"), {"A": 32236, "Q-JVM": 10337, "Q-native": 51}, False,
       "the study prints these differences but draws no ratio from them: the figures only", source="lab 3.2",
       method="the median above minus the Go reference's 9,534 ms", ratios=False),
    # --- soak
    _c("kt2020-soak-get", "KT-2020", "15 min warmed run, GET", "req/s", Where("soak", "rps", ""), {"Spring": 7137}, True,
       "here: the plan's soak path", method="wrk -t2 -c10 -d15m after a warm-up"),
    _c("kt2020-soak-post", "KT-2020", "15 min warmed run, POST", "req/s", Where("soak", "rps", "POST /data"),
       {"Spring": 2779}, True, "the soak scenario here runs one GET path: no POST figure", method="wrk -t2 -c10 -d15m after a warm-up, a POST script"),
    _c("rt2019-soak", "RT-2019", "native soak: requests served in >3 h, stable", "count", Where("soak", "requests", ""),
       {"Q-native": 51.89e6}, True,
       "the body's \"over 51,890,000\"; the summary says \"over 33 MILLION\" (see the contradictions)",
       method="wrk for more than 3 h against the native image"),
    # --- footprint
    _c("kt2020-artifact", "KT-2020", "artifact size", "MB", Where("footprint", "artifact_mb", ""),
       {"Spring": 26.9, "Q-JVM": 23.4, "Q-native": 47.4}, False, method="the built artifact's size"),
]

# RT-2019's density is a projection: processes = floor(budget / max RSS), times one process's req/s.
RT2019_BUDGET_MB = 2048

# LAB-2020's cost model: node savings of an estate of 300 services against Framework A.
PUBLISHED_SAVINGS = {"Q-JVM": 0.37, "Q-native": 0.64}
COST_STUDY = "LAB-2020"


def target_of(label: str) -> str:
    return TARGETS[label]


def claim(key: str) -> Claim:
    return next(c for c in CLAIMS if c.key == key)
