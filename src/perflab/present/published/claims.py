"""The studies' published figures as data: who measured what, how, in which unit, where in the
study it is printed, and where the lab stores the figure it compares them with.

Published figures are the studies' own, on their hardware. perflab reproduces the shape and the
ratios: each claim names a baseline (the study's reference framework) so a reader can compare
"Q-JVM / Spring Boot" published with the same ratio measured here. Figures are transcribed as
printed; where a study prints a value its own raw values contradict, the claim keeps the printed
value in ``printed`` and compares with the value the raw data gives (see conflicts.py).

This module lists the claims; the studies are in studies.py, what a claim is in claim_types.py, and
LAB-2020's and KT-2020's figures with the passages that print them in lab2020_figures.py and
kt2020_figures.py.
"""

from __future__ import annotations

from perflab.present.published.claim_types import Claim, Where
from perflab.present.published.claim_types import build as _c
from perflab.present.published.kt2020_figures import (KT2020_ARTIFACT_MB, KT2020_DOCKER, KT2020_DOCKER_MAX,
                                                      KT2020_DOCKER_REST, KT2020_FIRST_LAUNCH_MS, KT2020_GET,
                                                      KT2020_LAUNCH_MS, KT2020_LAUNCH_NOTE, KT2020_LAUNCHES_S,
                                                      KT2020_LONG, KT2020_MAX_MB, KT2020_OWN, KT2020_POST,
                                                      KT2020_REST_MB, KT2020_RUN, KT2020_SOAK_GET, KT2020_SOAK_POST,
                                                      KT2020_WARM_LAUNCHES_MS, KT2020_WRITE, kt2020_passage,
                                                      kt2020_variants)
from perflab.present.published.lab2020_figures import (LAB20_1_2B_PASSAGE, LAB20_2_1_RUNS, LAB20_3_1_RUNS,
                                                       LAB20_3_2_RUNS, LAB20_PEAK_PASSAGE, lab20_3_2_passage,
                                                       lab20_runs_passage)
from perflab.present.published.studies import KT2020_VARIANTS


CLAIMS: list[Claim] = [
    # --- startup
    _c("rt2019-start", "RT-2019", "start time (to first response)", "ms", Where("startup", "ttfr_ms", "warm"),
       {"Thorntail": 8764, "Q-JVM": 1629, "Q-native": 18}, False,
       source="Application Start Time", method="process start to the first served request",
       passage=("Application Start Time", "Start Time 8764 ms 18 ms 1629 ms")),
    _c("lab2020-ttfr", "LAB-2020", "3.1 time to ready, median (bare metal)", "ms",
       Where("startup", "ready_ms", "warm", with_first=True), {"A": 9649, "Q-JVM": 4455, "Q-native": 830}, False,
       "the study probed the health endpoint every 0.1 s, so its figure is time to ready (not the first "
       "response on /hello); its median includes the first run", source="lab 3.1",
       method="launch, health endpoint probed every 0.1 s until it answers; median of 3 runs, first included",
       raw=LAB20_3_1_RUNS, passage=lab20_runs_passage("SCENARIO 3.1", LAB20_3_1_RUNS)),
    _c("kt2020-launch", "KT-2020", "launch time from the log (median of the 10 launches after the first)", "ms",
       Where("startup", "framework_start_ms", "warm"), KT2020_LAUNCH_MS, False,
       KT2020_LAUNCH_NOTE + "; here: our contract apps", source="the 11 launches listed per app",
       method="the framework's own start line in the log; 11 launches, the first apart",
       raw=KT2020_WARM_LAUNCHES_MS, passage=kt2020_passage("launch", KT2020_LAUNCHES_S)),
    _c("kt2020-first-launch", "KT-2020", "first launch from the log", "ms",
       Where("startup", "framework_start_ms", "cold"), KT2020_FIRST_LAUNCH_MS, False,
       "here: our contract apps", source="the 11 launches listed per app", method="the first of the 11 launches",
       passage=kt2020_passage("first-launch", KT2020_LAUNCHES_S)),
    # --- memory
    _c("lab2020-rss-first", "LAB-2020", "1.1 RSS after the first request", "MB",
       Where("startup", "rss_after_first_mb", "warm"), {"A": 187, "Q-JVM": 151, "Q-native": 21}, False,
       "the study's lab 1.1 ran in 1 core / 500 MB", source="lab 1.1", method="RSS after the first request",
       passage=("SCENARIO 1.1", "Framework A 187 MB", "Quarkus on JVM 151 MB", "Quarkus on Native 21 MB")),
    _c("rt2019-max-rss", "RT-2019", "max RSS under load", "MB", Where("memory", "rss_peak_mb", "*"),
       {"Thorntail": 651, "Q-JVM": 414, "Q-native": 122}, False,
       source="Maximum Memory Usage",
       method="ps -o rss -p <PID>, the highest RSS during the throughput runs",
       passage=("Maximum Memory Usage", "651 MB 414 MB 122 MB")),
    _c("kt2020-rest", "KT-2020", "memory at rest (docker stats)", "MB",
       Where("kt2020load", "docker_rest_mb", "at rest"), KT2020_REST_MB, False,
       f"{KT2020_DOCKER}; here: our contract apps, {KT2020_DOCKER_REST}; {KT2020_OWN}",
       source="its memory listing", method="docker stats at rest", passage=kt2020_passage("rest", KT2020_REST_MB)),
    _c("kt2020-max", "KT-2020", "max memory under load (docker stats)", "MB",
       Where("kt2020load", "docker_peak_mb", "under load"), KT2020_MAX_MB, False,
       f"{KT2020_DOCKER}; here: our contract apps in kt2020load, {KT2020_DOCKER_MAX}; {KT2020_OWN}",
       source="its memory listing", method="docker stats, highest value under wrk -t2 -c10 -d1m",
       passage=kt2020_passage("max", KT2020_MAX_MB)),
    _c("lab2020-peak-rss", "LAB-2020", "1.3 peak RSS under load (GET todos, 8..56 connections)", "MB",
       Where("memory", "rss_peak_mb", "*"), {"A": 264, "Q-JVM": 214, "Q-native": 80}, False,
       "here: the plan's memory load path and connection count (the study's peak was at 40 connections for all "
       "three)", source="lab 1.3", method="RSS at each app's peak throughput over the load runs at 8..56 connections",
       passage=LAB20_PEAK_PASSAGE),
    _c("lab2020-rps-per-mb", "LAB-2020", "1.3 req/s per MB of peak RSS", "req/s/MB",
       Where("memory", "rps_per_mb", "*"), {"A": 14, "Q-JVM": 30, "Q-native": 41}, True,
       source="lab 1.3", method="peak throughput / RSS at that peak",
       passage=("Result as req/sec/MB", "Framework A 14 req/sec/MB", "Quarkus on JVM 30 req/sec/MB",
                "Quarkus on Native 41 req/sec/MB")),
    # --- sweep
    _c("rt2019-rps-40", "RT-2019", "throughput at 40 connections (GET /fruits)", "req/s",
       Where("sweep", "rps", path="/fruits", connections=40),
       {"Thorntail": 32391, "Q-JVM": 76488, "Q-native": 44841}, True,
       source="Table 1, 40-connection row (the whole table on the sweep chart)",
       method="wrk from a separate machine (the path its script loaded is not given; the one endpoint the study "
              "shows is GET /fruits)",
       passage=("Table 1. Maximum Throughput (Req/Sec)", "40 32,391 44,841 76,488")),
    _c("rt2019-mean-40", "RT-2019", "mean latency at 40 connections (GET /fruits)", "ms",
       Where("sweep", "latency_mean_ms", path="/fruits", connections=40),
       {"Thorntail": 1.69, "Q-JVM": 0.91, "Q-native": 2.43}, False,
       source="Table 2, 40-connection row (the whole table on the sweep chart)", method="wrk's mean latency",
       passage=("Table 2. Response Time (ms)", "40 1.69 143.49 2.43 48.37 0.91 63.71")),
    _c("rt2019-max-40", "RT-2019", "max latency at 40 connections (GET /fruits)", "ms",
       Where("sweep", "latency_max_ms", path="/fruits", connections=40),
       {"Thorntail": 143.49, "Q-JVM": 63.71, "Q-native": 48.37}, False,
       source="Table 2, 40-connection row (the whole table on the sweep chart)", method="wrk's max latency",
       passage=("Table 2. Response Time (ms)", "40 1.69 143.49 2.43 48.37 0.91 63.71")),
    _c("lab2020-peak-rps", "LAB-2020", "1.3 peak throughput (GET todos, 8..56 connections)", "req/s",
       Where("sweep", "rps", path="/todos", best=True), {"A": 3697, "Q-JVM": 6396, "Q-native": 3266}, True,
       "the whole table is drawn on the sweep chart", source="lab 1.3 (its table per connection count)",
       method="the best of the load runs at 8..56 connections", passage=LAB20_PEAK_PASSAGE),
    # --- write
    # the blog's 10-s runs, read as on freshly started apps (KT2020_RUN): kt2020load loads those (plan kt2020);
    # the write scenario (other plans) loads the long-lived load instance instead, declared below
    _c("kt2020-get", "KT-2020", "GET /api/{data}, 10 s on a freshly started app, wrk -t2 -c10", "req/s",
       Where("kt2020load", "rps", "GET cold"), KT2020_GET, True, "here: our contract apps in kt2020load; " + KT2020_OWN,
       source="its wrk runs", method=KT2020_RUN,
       passage=kt2020_passage("get", KT2020_GET)),
    _c("kt2020-post", "KT-2020", "POST /api/, 10 s on a freshly started app, wrk -t2 -c10", "req/s",
       Where("kt2020load", "rps", "POST cold"), KT2020_POST, True, "here: our contract apps in kt2020load; " + KT2020_OWN,
       source="its wrk runs", method=f"{KT2020_RUN}, a POST script",
       passage=kt2020_passage("post", KT2020_POST)),
    _c("kt2020-get-write", "KT-2020", "GET /api/{data}, 10 s, wrk -t2 -c10, on the long-lived instance", "req/s",
       Where("write", "rps", "GET /data/{key}"), KT2020_GET, True,
       f"{KT2020_WRITE}; {KT2020_OWN}", source="its wrk runs", method=KT2020_RUN,
       passage=kt2020_passage("get", KT2020_GET)),
    _c("kt2020-post-write", "KT-2020", "POST /api/, 10 s, wrk -t2 -c10, on the long-lived instance", "req/s",
       Where("write", "rps", "POST /data"), KT2020_POST, True, f"{KT2020_WRITE}; {KT2020_OWN}",
       source="its wrk runs", method=f"{KT2020_RUN}, a POST script",
       passage=kt2020_passage("post", KT2020_POST)),
    # --- density
    _c("rt2019-density", "RT-2019", "processes per 2048 MB", "count", Where("density", "instances", "*"),
       {"Thorntail": 3, "Q-JVM": 4, "Q-native": 16}, True,
       "a projection: the study divided 2048 MB by its max RSS and rounded down, it did not start them",
       source="the 2048 MB table", method="⌊2048 MB / max RSS⌋",
       passage=("Number processes per 2048MB", "Thorntail 651 3", "Quarkus - JVM 414 4", "Quarkus - Native 122 16")),
    _c("rt2019-density-rps", "RT-2019", "throughput of those processes (per-process req/s x processes)", "req/s",
       Where("density", "projected_rps", "*"), {"Thorntail": 111246, "Q-JVM": 308472, "Q-native": 717456}, True,
       "per process: each one's max req/s over Table 1 (see RT-2019's 2048 MB table)", source="the 2048 MB table",
       method="processes per 2048 MB x one process's max req/s",
       passage=("Number processes per 2048MB", "111,246", "308,472", "717,456")),
    _c("lab2020-10-pods", "LAB-2020", "1.2A memory of 10 pods", "MB", Where("density", "rss_10_instances_mb", "*"),
       {"A": 1594, "Q-JVM": 1098, "Q-native": 194}, False, source="lab 1.2A", method="10 pods on Kubernetes",
       passage=("SCENARIO 1.2A", "Framework A 1594 MB", "Quarkus on JVM 1098 MB", "Quarkus on Native 194 MB")),
    _c("lab2020-pods-2gb", "LAB-2020", "1.2B pods in 2 GB", "count", Where("density", "instances", "*"),
       {"A": 12, "Q-JVM": 18, "Q-native": 98}, True,
       "the prose gives two different ratios for Quarkus JVM (see the contradictions)", source="lab 1.2B",
       method="pods started in a 2 GB namespace until one failed", passage=LAB20_1_2B_PASSAGE),
    _c("lab2020-pods-2gb-memory", "LAB-2020", "1.2B memory of the pods started in 2 GB", "MB",
       Where("density", "total_rss_mb", "*"), {"A": 1911, "Q-JVM": 1996, "Q-native": 1967}, False,
       "each app's own number of pods (12, 18 and 98): the study draws no ratio from these figures; here the "
       "fitted instances' summed RSS at rest", source="lab 1.2B", method="the pods' memory once no more would start",
       ratios=False, passage=LAB20_1_2B_PASSAGE),
    # --- scaleup, coldstart
    _c("lab2020-scaleup", "LAB-2020", "2.1 time to scale 0 -> 1 (Kubernetes)", "ms",
       Where("scaleup", "ready_ms", "warm", with_first=True),
       {"A": 49960, "Q-JVM": 30359, "Q-native": 9935}, False,
       "here: launch to readiness, no Kubernetes; the study's median includes the first run", source="lab 2.1",
       method="scale a deployment 0 -> 1, health endpoint probed every 0.5 s until ready; 3 runs, median, first "
              "included", raw=LAB20_2_1_RUNS, passage=lab20_runs_passage("SCENARIO 2.1", LAB20_2_1_RUNS)),
    _c("lab2020-coldstart-ttfr", "LAB-2020", "3.2 serverless time to first response, median", "ms",
       Where("coldstart", "ttfr_ms", "*"), {"A": 41770, "Q-JVM": 19871, "Q-native": 9237}, False,
       "the study's ratios of raw time to first response: Q-JVM \"roughly 47.6 %\" of A, compared as stated; "
       "Q-native's stated \"22.9 %\" is its printed median 9.585 s over A's, so its ratio is compared as the "
       "median of its listed runs gives it, 9.237 s over A's (see the contradictions); the Go reference answered "
       "after 9,534 ms (here: each pair's reference_ttfr_ms)",
       source="lab 3.2", method="serverless cold start to the first response; 3 runs, median",
       stated={"Q-JVM": 0.476}, raw=LAB20_3_2_RUNS, printed={"Q-native": 9585}, passage=lab20_3_2_passage()),
    _c("lab2020-coldstart", "LAB-2020", "3.2 time to first response minus the Go reference's",
       "ms", Where("coldstart", "ttfr_minus_reference_ms", "*"), {"A": 32236, "Q-JVM": 10337, "Q-native": 51}, False,
       "the study prints these differences but draws no ratio from them: the figures only", source="lab 3.2",
       method="the median above minus the Go reference's 9,534 ms", ratios=False, passage=lab20_3_2_passage()),
    # --- soak
    _c("kt2020-soak-get", "KT-2020", "15 min warmed run, GET", "req/s", Where("soak", "rps", ""), KT2020_SOAK_GET, True,
       "here: our contract apps, the plan's soak path; " + KT2020_OWN, source="its wrk runs",
       method=KT2020_LONG, passage=kt2020_passage("soak-get", KT2020_SOAK_GET)),
    _c("kt2020-soak-post", "KT-2020", "15 min warmed run, POST", "req/s", Where("soak", "rps", "POST /data"),
       KT2020_SOAK_POST, True, "the soak scenario here runs one GET path: no POST figure; " + KT2020_OWN,
       source="its wrk runs", method=f"{KT2020_LONG}, a POST script",
       passage=kt2020_passage("soak-post", KT2020_SOAK_POST)),
    _c("rt2019-soak", "RT-2019", "native soak: requests served in >3 h, stable", "count", Where("soak", "requests", ""),
       {"Q-native": 51.89e6}, True,
       "the body's \"over 51,890,000\"; the summary says \"over 33 MILLION\" (see the contradictions)",
       source="Quarkus native - Long running processes", method="wrk for more than 3 h against the native image",
       passage=("Quarkus native - Long running processes", "51,890,000")),
    # --- footprint
    _c("kt2020-artifact", "KT-2020", "artifact size", "MB", Where("footprint", "artifact_mb", ""),
       KT2020_ARTIFACT_MB, False, source="its artifact size listing", method="the built artifact's size",
       passage=kt2020_passage("artifact", KT2020_ARTIFACT_MB)),
    # --- KT-2020's own services, per variant (kt2020 plan)
    *kt2020_variants(),
]

# RT-2019's density is a projection: processes = floor(budget / max RSS), times one process's req/s.
RT2019_BUDGET_MB = 2048

# LAB-2020's cost model: node savings of an estate of 300 services against Framework A.
PUBLISHED_SAVINGS = {"Q-JVM": 0.37, "Q-native": 0.64}
COST_STUDY = "LAB-2020"


def published_figure(c: Claim, label: str) -> tuple:
    """One figure as its study prints it, whichever claims compare it: KT-2020's rates and memory
    are compared in more than one scenario, and against our apps and the blog's services in each
    variant, but each is one figure of the blog's (its label without the variant)."""
    base = label
    for variant in KT2020_VARIANTS:
        base = base.removesuffix(f" {variant}")
    return c.study, base, c.unit, c.where.metric, c.value(label)


def claim(key: str) -> Claim:
    return next(c for c in CLAIMS if c.key == key)
