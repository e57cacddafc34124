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

# KT-2020's own Kotlin services as rebuilt here, in both variants: the blog's labels for each
# variant's app/mode ("Spring as published" is the blog's Spring service, as the blog wrote it).
# Only the as-published variant is what the blog measured; "fixed" is the same code without its
# three costly choices, which the blog did not measure. No native image is built of them.
KT2020_VARIANTS = {"as published": "as-published", "fixed": "fixed"}
KT2020_APPS = {"Spring": "kt2020-spring", "Q-JVM": "kt2020-quarkus"}
for _variant, _mode in KT2020_VARIANTS.items():
    for _label, _app in KT2020_APPS.items():
        TARGETS[f"{_label} {_variant}"] = f"{_app}/{_mode}"


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
                     "Quarkus 1.3.1.Final (quarkus-kotlin, -resteasy, -resteasy-jackson, -agroal, -jdbc-h2) and "
                     "Kotlin 1.3.71 (plugin.allopen), as its Quarkus build listing prints them; Spring Boot 2 (its "
                     "exact version, H2's and the JDK not transcribed)"),
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
        if self.point.startswith("at "):  # a label that says where already ("at rest")
            return f"{self.scenario} {self.metric} {self.point}"
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
    base: str = ""  # the baseline's label where it is not the study's own (a variant of it)

    @property
    def baseline(self) -> str:
        return self.base or STUDIES[self.study].baseline

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

# KT-2020's launch times from the log (ms): the blog lists all 11 per app; perflab holds only the
# medians of the 10 launches after the first, and the first launches (see conflicts.NOT_TRANSCRIBED).
KT2020_LAUNCH_MS = {"Spring": 2789, "Q-JVM": 1765, "Q-native": 13.5}
KT2020_FIRST_LAUNCH_MS = {"Spring": 3800, "Q-JVM": 3700, "Q-native": 890}


def _listed(values: dict[str, float], scale: float = 1.0) -> str:
    return ", ".join(f"{label} {v / scale:,g}" for label, v in values.items())


KT2020_LAUNCH_NOTE = (f"the blog lists all 11 launch values per app; perflab holds only their medians "
                      f"({_listed(KT2020_LAUNCH_MS)} ms, of the 10 warm launches) and the first launches "
                      f"({_listed(KT2020_FIRST_LAUNCH_MS, 1000)} s): the copy of the blog available here breaks "
                      f"off before its launch listings")

# KT-2020's load figures (req/s) and memory (MB, docker stats)
KT2020_GET = {"Spring": 3240, "Q-JVM": 1020, "Q-native": 2178}
KT2020_POST = {"Spring": 1623, "Q-JVM": 644, "Q-native": 1115}
KT2020_SOAK_GET = {"Spring": 7137}
KT2020_SOAK_POST = {"Spring": 2779}
KT2020_REST_MB = {"Spring": 287, "Q-JVM": 97, "Q-native": 6.5}
KT2020_MAX_MB = {"Spring": 602, "Q-JVM": 418, "Q-native": 283}
KT2020_ARTIFACT_MB = {"Spring": 26.9, "Q-JVM": 23.4, "Q-native": 47.4}
_KT2020_OWN = "the blog's own services are compared in kt2020load (the claims of each variant)"
_KT2020_DOCKER = "docker stats shows the container's cgroup memory less its inactive file pages (not RSS)"
_KT2020_DOCKER_REST = "memory.current less inactive_file at the end of kt2020load's quiet pause"
_KT2020_DOCKER_MAX = "the cgroup's peak under the load less the inactive file pages read at its end"


def _kt2020_variants() -> list[Claim]:
    """KT-2020's figures against the blog's own services rebuilt here (kt2020load, startup), one
    claim per variant; the blog's Quarkus native figure has no counterpart among them."""
    kinds = [
        ("get", "GET /api/{data}, 10 s on a freshly started app, wrk -t2 -c10", "req/s",
         Where("kt2020load", "rps", "GET cold"), KT2020_GET, True, "", "wrk -t2 -c10 -d10s on a freshly started app"),
        ("post", "POST /api, 10 s on a freshly started app, wrk -t2 -c10", "req/s",
         Where("kt2020load", "rps", "POST cold"), KT2020_POST, True, "",
         "wrk -t2 -c10 -d10s on a freshly started app, a POST script"),
        ("soak-get", "15 min run on a warmed app, GET", "req/s", Where("kt2020load", "rps", "GET long"),
         KT2020_SOAK_GET, True, "the blog ran it on Spring Boot only; here the long run of the last launch",
         "wrk -t2 -c10 -d15m after a warm-up"),
        ("soak-post", "15 min run on a warmed app, POST", "req/s", Where("kt2020load", "rps", "POST long"),
         KT2020_SOAK_POST, True, "the blog ran it on Spring Boot only; here the long run of the last launch",
         "wrk -t2 -c10 -d15m after a warm-up, a POST script"),
        ("rest", "memory at rest (docker stats)", "MB", Where("kt2020load", "docker_rest_mb", "at rest"),
         KT2020_REST_MB, False, f"{_KT2020_DOCKER}; here {_KT2020_DOCKER_REST}", "docker stats at rest"),
        ("max", "max memory under load (docker stats)", "MB", Where("kt2020load", "docker_peak_mb", "under load"),
         KT2020_MAX_MB, False, f"{_KT2020_DOCKER}; here {_KT2020_DOCKER_MAX}",
         "docker stats, highest value under wrk -t2 -c10 -d1m"),
        ("launch", "launch time from the log (median of the 10 launches after the first)", "ms",
         Where("startup", "framework_start_ms", "warm"), KT2020_LAUNCH_MS, False, KT2020_LAUNCH_NOTE,
         "the framework's own start line in the log; 11 launches, the first apart"),
        ("first-launch", "first launch from the log", "ms", Where("startup", "framework_start_ms", "cold"),
         KT2020_FIRST_LAUNCH_MS, False, "", "the first of the 11 launches"),
    ]
    out = []
    for variant, mode in KT2020_VARIANTS.items():
        said = ("the blog's code as it published it, the variant comparable to the blog's figures" if mode == "as-published"
                else "the blog's code without its three costly choices, a variant the blog did not measure")
        for kind, what, unit, where, figures, higher, note, method in kinds:
            ours = {f"{label} {variant}": v for label, v in figures.items() if label in KT2020_APPS}
            out.append(_c(f"kt2020-{kind}-{mode}", "KT-2020", f"{what}: the blog's services {variant}", unit, where,
                          ours, higher, "; ".join(x for x in (f"{variant}: {said}", note) if x),
                          source="the 11 launches listed per app" if kind in ("launch", "first-launch") else "",
                          method=method, base=f"Spring {variant}"))
    return out


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
       Where("startup", "framework_start_ms", "warm"), KT2020_LAUNCH_MS, False,
       KT2020_LAUNCH_NOTE + "; here: our contract apps", source="the 11 launches listed per app",
       method="the framework's own start line in the log; 11 launches, the first apart"),
    _c("kt2020-first-launch", "KT-2020", "first launch from the log", "ms",
       Where("startup", "framework_start_ms", "cold"), KT2020_FIRST_LAUNCH_MS, False,
       "here: our contract apps", source="the 11 launches listed per app", method="the first of the 11 launches"),
    # --- memory
    _c("lab2020-rss-first", "LAB-2020", "1.1 RSS after the first request", "MB",
       Where("startup", "rss_after_first_mb", "warm"), {"A": 187, "Q-JVM": 151, "Q-native": 21}, False,
       "the study's lab 1.1 ran in 1 core / 500 MB", source="lab 1.1", method="RSS after the first request"),
    _c("rt2019-max-rss", "RT-2019", "max RSS under load", "MB", Where("memory", "rss_peak_mb", "*"),
       {"Thorntail": 651, "Q-JVM": 414, "Q-native": 122}, False,
       source="Maximum Memory Usage",
       method="ps -o rss -p <PID>, the highest RSS during the throughput runs"),
    _c("kt2020-rest", "KT-2020", "memory at rest (docker stats)", "MB",
       Where("kt2020load", "docker_rest_mb", "at rest"), KT2020_REST_MB, False,
       f"{_KT2020_DOCKER}; here: our contract apps, {_KT2020_DOCKER_REST}; {_KT2020_OWN}",
       method="docker stats at rest"),
    _c("kt2020-max", "KT-2020", "max memory under load (docker stats)", "MB",
       Where("kt2020load", "docker_peak_mb", "under load"), KT2020_MAX_MB, False,
       f"{_KT2020_DOCKER}; here: our contract apps in kt2020load, {_KT2020_DOCKER_MAX}; {_KT2020_OWN}",
       method="docker stats, highest value under wrk -t2 -c10 -d1m"),
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
       KT2020_GET, True, "here: our contract apps in write; " + _KT2020_OWN,
       method="wrk -t2 -c10 -d10s on a freshly started app"),
    _c("kt2020-post", "KT-2020", "POST /data, 10 s, wrk -t2 -c10", "req/s", Where("write", "rps", "POST /data"),
       KT2020_POST, True, "here: our contract apps in write; " + _KT2020_OWN,
       method="wrk -t2 -c10 -d10s on a freshly started app, a POST script"),
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
       "the study's ratios of raw time to first response: Q-JVM \"roughly 47.6 %\" of A, compared as stated; "
       "Q-native's stated \"22.9 %\" is its printed median 9.585 s over A's, so its ratio is compared as the "
       "median of its listed runs gives it, 9.237 s over A's (see the contradictions); the Go reference answered "
       "after 9,534 ms (here: each pair's reference_ttfr_ms)",
       source="lab 3.2", method="serverless cold start to the first response; 3 runs, median",
       stated={"Q-JVM": 0.476}, raw={"Q-native": _LAB20_3_2_NATIVE}, printed={"Q-native": 9585}),
    _c("lab2020-coldstart", "LAB-2020", "3.2 time to first response minus the Go reference's",
       "ms", Where("coldstart", "ttfr_minus_reference_ms", "*"), {"A": 32236, "Q-JVM": 10337, "Q-native": 51}, False,
       "the study prints these differences but draws no ratio from them: the figures only", source="lab 3.2",
       method="the median above minus the Go reference's 9,534 ms", ratios=False),
    # --- soak
    _c("kt2020-soak-get", "KT-2020", "15 min warmed run, GET", "req/s", Where("soak", "rps", ""), KT2020_SOAK_GET, True,
       "here: our contract apps, the plan's soak path; " + _KT2020_OWN, method="wrk -t2 -c10 -d15m after a warm-up"),
    _c("kt2020-soak-post", "KT-2020", "15 min warmed run, POST", "req/s", Where("soak", "rps", "POST /data"),
       KT2020_SOAK_POST, True, "the soak scenario here runs one GET path: no POST figure; " + _KT2020_OWN,
       method="wrk -t2 -c10 -d15m after a warm-up, a POST script"),
    _c("rt2019-soak", "RT-2019", "native soak: requests served in >3 h, stable", "count", Where("soak", "requests", ""),
       {"Q-native": 51.89e6}, True,
       "the body's \"over 51,890,000\"; the summary says \"over 33 MILLION\" (see the contradictions)",
       method="wrk for more than 3 h against the native image"),
    # --- footprint
    _c("kt2020-artifact", "KT-2020", "artifact size", "MB", Where("footprint", "artifact_mb", ""),
       KT2020_ARTIFACT_MB, False, method="the built artifact's size"),
    # --- KT-2020's own services, per variant (kt2020 plan)
    *_kt2020_variants(),
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
