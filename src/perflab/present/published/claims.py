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
from statistics import median as _median

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
    environment: str  # its machines and services, as the study describes them

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
                      "Framework A and its version are not named, nor the Quarkus version of labs 1.1-3.2; the JVM "
                      "apps' image fabric8/java-alpine-openjdk8-jre (OpenJDK 8), the native one's ubi8/ubi-minimal; "
                      "PostgreSQL 10.5 (postgres:10.5); labs 4.1.1-4.1.3: Quarkus 1.2.1.Final, Java SE 11, Maven 3.6",
                      "labs 1.1, 2.1 and 3.1 on Bare-Metal Environment A: RHEL Server 7.7, 2 x Intel Xeon E5620 @ "
                      "2.40GHz (8 cores, HT), 157 GB, Podman, cgroups of 4 cores / 256 MB; lab 1.3 on Bare-Metal "
                      "Environment B: RHEL 8.0, 2 x Intel Xeon E5-2690 0 @ 2.90GHz (32 cores, HT), 264 GB, Podman, "
                      "cgroups of 4 cores / 256 MB; labs 1.2 and 3.2 on OpenShift 4.2, 3 worker nodes of AWS "
                      "m4.4xlarge (Xeon E5-2686 v4 @ 2.3 GHz or E5-2676 v3 @ 2.4 GHz, 16 vCPU, 64 GB)"),
    "KT-2020": Study("KT-2020", '"Spring Boot 2 vs Quarkus" blog (2020, Kotlin)',
                     "data-object API on H2, pool 10..100; 11 launches; wrk -t2 -c10", "Spring",
                     "Quarkus 1.3.1.Final (quarkus-kotlin, -resteasy, -resteasy-jackson, -agroal, -jdbc-h2); Spring "
                     "Boot 2.2.6.RELEASE (starter-web, starter-data-jdbc; dependency-management 1.0.9.RELEASE); "
                     "Kotlin 1.3.71; H2 1.4.200 (Spring's build; Quarkus's from its BOM, not named); both built for "
                     "Java 11 (source, target and Kotlin jvmTarget 11), the JDK they ran on not named",
                     "each app and the H2 server in its own docker container (docker-compose), the launches one at a "
                     "time, wrk in a container of its own; the machine is not described"),
}


# Each study's text, as the folder of the studies' texts names it (see its README).
TEXTS = {"RT-2019": "000_6f4242bf9e58be3e.txt", "LAB-2020": "002_7908454aa356699b.txt",
         "KT-2020": "003_dba97c6e4dbea2a0.txt"}


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
    contradict it). ``ratios`` is False when the study draws no ratio from these figures.
    ``passage``: what to search the study's text for, in order, to find the figures."""

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
    # where in the study's text the figures are read: strings found in order in its text (see
    # TEXTS), a heading first, then the lines holding the figures
    passage: tuple[str, ...] = ()

    @property
    def baseline(self) -> str:
        return self.base or STUDIES[self.study].baseline

    def value(self, label: str) -> float | None:
        return next((v for lbl, v in self.figures if lbl == label), None)

    def has_baseline(self) -> bool:
        return self.ratios and self.value(self.baseline) is not None

    def provenance(self) -> str:
        """Where the study prints the figures, how it measured them, and its raw values."""
        parts = [f"printed in: {self.source}"]
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


# the three runs labs 2.1, 3.1 and 3.2 list per app (ms; the study prints s), each with its median
LAB20_2_1_RUNS = {"A": (49960.0, 49806.0, 50329.0), "Q-JVM": (30359.0, 29829.0, 30451.0),
                  "Q-native": (10293.0, 9446.0, 9935.0)}
LAB20_3_1_RUNS = {"A": (9675.0, 9649.0, 9598.0), "Q-JVM": (4539.0, 4455.0, 4398.0), "Q-native": (862.0, 755.0, 830.0)}
LAB20_3_2_RUNS = {"A": (40557.0, 41770.0, 41941.0), "Q-JVM": (15320.0, 20281.0, 19871.0),
                  "Q-native": (9237.0, 9076.0, 9585.0)}
LAB20_3_2_GO_RUNS = (11432.0, 9534.0, 9507.0)  # the Go reference's, subtracted from each median
_LAB20_3_2_NATIVE = LAB20_3_2_RUNS["Q-native"]

# LAB-2020 1.3's table: throughput (req/s) per connection count of A, Q-JVM and Q-native; the
# study prints memory only at each app's peak (MEM_PEAK), which is at 40 connections for all three
LAB20_1_3_TABLE: dict[int, tuple[float, float, float]] = {
    8: (1375, 1635, 1068),
    16: (2597, 3033, 1932),
    24: (3568, 4368, 2693),
    32: (3557, 5380, 3139),
    40: (3697, 6396, 3266),
    48: (3555, 6389, 3212),
    56: (3578, 5986, 3106),
}
LAB20_1_3_LABELS = ("A", "Q-JVM", "Q-native")  # the table's column order


def _lab20_rows(rows: dict, labels: dict[str, str], cells) -> tuple[str, ...]:
    """A LAB-2020 table's rows as its text lays them out: the app's name, then its cells."""
    return tuple(f"{name} {cells(label, row)}" for label, name in labels.items() for row in [rows[label]])


_LAB20_NAMES = {"A": "Framework A", "Q-JVM": "Quarkus JVM", "Q-native": "Quarkus Native"}
_LAB20_ON = {"A": "Framework A", "Q-JVM": "Quarkus on JVM", "Q-native": "Quarkus on Native"}


def _lab20_runs(heading: str, runs: dict[str, tuple[float, ...]]) -> tuple[str, ...]:
    """Labs 2.1 and 3.1: each app's three runs and median, in s with 3 decimals."""
    return (heading, *_lab20_rows(runs, _LAB20_NAMES, lambda _, r: " ".join(
        f"{v / 1000:.3f}" for v in (*r, _median(r)))))


def _lab20_3_2() -> tuple[str, ...]:
    go = LAB20_3_2_GO_RUNS
    def row(r):
        return ", ".join(f"{v / 1000:.3f}s" for v in r)
    printed = {"Q-native": 9585.0}  # the study's printed median (see the contradictions)
    return ("SCENARIO 3.2", f"Go (for reference) {row(go)}; MED: {_median(go) / 1000:.3f}s",
            *(f"{name} {row(r)}; MED: {printed.get(lbl, _median(r)) / 1000:.3f}s "
              f"{(printed.get(lbl, _median(r)) - _median(go)) / 1000:.3f}s"
              for lbl, name in _LAB20_NAMES.items() for r in [LAB20_3_2_RUNS[lbl]]))


_LAB20_PEAK = ("Memory usage for peak load (MEM_PEAK)", "Framework A 264 MB 3697 req/sec",
               "Quarkus JVM 214 MB 6396 req/sec", "Quarkus Native 80 MB 3266 req/sec")
_LAB20_1_2B = ("SCENARIO 1.2B", "Framework A 12 1911 MB", "Quarkus on JVM 18 1996 MB", "Quarkus on Native 98 1967 MB")

# KT-2020's launch times from the log, in s as the blog lists them: all 11 launches per app, the
# first (a fresh container) included. Its "Application launch time" listing.
KT2020_LAUNCHES_S = {
    "Spring": (3.807, 2.724, 2.856, 2.891, 2.819, 2.760, 2.732, 2.744, 2.758, 2.818, 2.908),
    "Q-JVM": (3.665, 1.737, 1.716, 1.715, 1.667, 1.877, 1.811, 1.676, 1.895, 1.793, 1.921),
    "Q-native": (0.892, 0.013, 0.016, 0.014, 0.014, 0.012, 0.012, 0.014, 0.014, 0.012, 0.013),
}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


# the figures compared: the median of the 10 launches after the first, and the first apart
KT2020_WARM_LAUNCHES_MS = {label: tuple(_ms(v) for v in runs[1:]) for label, runs in KT2020_LAUNCHES_S.items()}
KT2020_LAUNCH_MS = {label: _median(runs) for label, runs in KT2020_WARM_LAUNCHES_MS.items()}
KT2020_FIRST_LAUNCH_MS = {label: _ms(runs[0]) for label, runs in KT2020_LAUNCHES_S.items()}


def _listed(values: dict[str, float], scale: float = 1.0) -> str:
    return ", ".join(f"{label} {v / scale:,g}" for label, v in values.items())


KT2020_LAUNCH_NOTE = (f"the blog lists all 11 launches per app, the first included; compared here: the median of the "
                      f"10 after the first ({_listed(KT2020_LAUNCH_MS)} ms) and the first apart "
                      f"({_listed(KT2020_FIRST_LAUNCH_MS, 1000)} s)")

# KT-2020's load figures (req/s, wrk's "Requests/sec") and memory (MB, docker stats), as printed
KT2020_GET = {"Spring": 3239.68, "Q-JVM": 1020.09, "Q-native": 2177.64}
KT2020_POST = {"Spring": 1623.40, "Q-JVM": 643.53, "Q-native": 1114.74}
KT2020_SOAK_GET = {"Spring": 7136.70}
KT2020_SOAK_POST = {"Spring": 2778.57}
KT2020_REST_MB = {"Spring": 287.3, "Q-JVM": 97.34, "Q-native": 6.488}
KT2020_MAX_MB = {"Spring": 601.5, "Q-JVM": 418.2, "Q-native": 282.5}
KT2020_ARTIFACT_MB = {"Spring": 26.882397, "Q-JVM": 23.388866, "Q-native": 47.413896}
# wrk's latency line of each run (ms): (Avg, Stdev, Max); the blog's summary plots them, the text prints them
KT2020_LATENCY_MS = {
    "GET cold": {"Spring": (11.41, 45.57, 441.14), "Q-JVM": (15.57, 33.22, 343.49), "Q-native": (4.64, 2.15, 26.13)},
    "POST cold": {"Spring": (14.41, 46.06, 429.64), "Q-JVM": (22.45, 40.84, 387.82), "Q-native": (9.02, 2.99, 45.99)},
    "GET long": {"Spring": (1.55, 4.86, 402.72)},
    "POST long": {"Spring": (3.77, 5.83, 438.59)},
}

# each wrk run's totals as printed: requests, the run's duration, bytes read and Transfer/sec (wrk's
# units: KB, MB and GB of 1024)
KT2020_WRK_TOTALS = {
    "GET cold": {"Q-JVM": (10219, "10.02s", "0.89MB", "90.65KB"), "Q-native": (21780, "10.00s", "1.89MB", "193.52KB"),
                 "Spring": (32407, "10.00s", "4.49MB", "459.34KB")},
    "POST cold": {"Q-JVM": (6443, "10.01s", "446.73KB", "44.62KB"),
                  "Q-native": (11160, "10.01s", "773.79KB", "77.29KB"),
                  "Spring": (16240, "10.00s", "1.94MB", "198.48KB")},
    "GET long": {"Spring": (6423216, "15.00m", "0.87GB", "0.99MB")},
    "POST long": {"Spring": (2500953, "15.00m", "298.59MB", "339.70KB")},
}

# How the blog ran its load, as the lab reads it: the text gives each run's length, not the app's state.
KT2020_RUN = ("wrk -t2 -c10 -d10s, on a freshly started app by the lab's reading (the blog says \"duration of 10 "
              "seconds\", not cold or freshly started)")
KT2020_LONG = ("wrk -t2 -c10 -d15m, after a warm-up by the lab's reading (the blog heads these runs \"long run test "
               "(warming up JVM)\", as if the 15 minutes were the warm-up)")

# --- where the blog prints them: its listings name each app, its wrk runs follow a heading per app
_KT2020_ROW = {"Q-JVM": "app-quarkus-jvm", "Spring": "app-spring-boot", "Q-native": "app-quarkus-native"}
_KT2020_RUNS = {"Q-JVM": "#### Quarkus on JVM", "Q-native": "#### Quarkus as native application",
                "Spring": "#### Spring Boot"}  # in the blog's order
_KT2020_LONG = "#### Spring Boot long run test"
_KT2020_REQUEST = {"GET": "GET '/api/{data}'", "POST": "POST '/api/'"}


def _kt2020_listing(heading: str, labels, row) -> tuple[str, ...]:
    """A listing's heading, then its lines (in the blog's order: Quarkus JVM, Spring Boot, native)."""
    return (heading, *(f"{_KT2020_ROW[lbl]},{row(lbl)}" for lbl in _KT2020_ROW if lbl in labels))


def _kt2020_run(run: str, labels, line) -> tuple[str, ...]:
    """The wrk output of a run ("GET cold", "POST long") for each label, each after its heading."""
    method, stage = run.split()
    out: list[str] = []
    for lbl, heading in _KT2020_RUNS.items():
        if lbl in labels:
            out += [_KT2020_LONG if stage == "long" else heading, _KT2020_REQUEST[method], line(lbl)]
    return tuple(out)


def _kt2020_passage(kind: str, labels) -> tuple[str, ...]:
    """The passage of one kind of KT-2020 figure, for the labels a claim holds."""
    if kind in ("launch", "first-launch"):
        return _kt2020_listing("#### Application launch time", labels,
                               lambda lbl: ",".join(f"{v:.3f}" for v in KT2020_LAUNCHES_S[lbl]))
    if kind in ("rest", "max"):
        return _kt2020_listing("#### Application memmory usage", labels,
                               lambda lbl: f"{KT2020_REST_MB[lbl]},{KT2020_MAX_MB[lbl]}")
    if kind == "artifact":
        return _kt2020_listing("#### Artifact size", labels, lambda lbl: f"{KT2020_ARTIFACT_MB[lbl]}")
    run, figures = _KT2020_KIND_RUN[kind]
    if figures is None:  # latency
        return _kt2020_run(run, labels, lambda lbl: "Latency " + " ".join(
            f"{v:.2f}ms" for v in KT2020_LATENCY_MS[run][lbl]))
    return _kt2020_run(run, labels, lambda lbl: f"Requests/sec: {figures[lbl]:.2f}")


def kt2020_totals_passage(run: str, label: str) -> tuple[str, ...]:
    """Where the blog prints a run's totals (KT2020_WRK_TOTALS), then its Requests/sec and Transfer/sec."""
    requests, duration, read, transfer = KT2020_WRK_TOTALS[run][label]
    rps = next(figures for r, figures in _KT2020_KIND_RUN.values() if r == run and figures is not None)[label]
    return (*_kt2020_run(run, [label], lambda _: f"{requests} requests in {duration}, {read} read"),
            f"Requests/sec: {rps:.2f}", f"Transfer/sec: {transfer}")


_KT2020_KIND_RUN = {"get": ("GET cold", KT2020_GET), "post": ("POST cold", KT2020_POST),
                    "soak-get": ("GET long", KT2020_SOAK_GET), "soak-post": ("POST long", KT2020_SOAK_POST),
                    **{f"{what}-{m.lower()}-{stage}": (f"{m} {stage}", None) for what in ("mean", "max-latency")
                       for m in ("GET", "POST") for stage in ("cold", "long")}}
_KT2020_OWN = "the blog's own services are compared in kt2020load (the claims of each variant)"
_KT2020_WRITE = ("the write scenario loads the run's long-lived load instance, where the blog loaded a freshly "
                 "started app (plan kt2020 compares our contract apps as the blog did, in kt2020load), and on the "
                 "contract apps' own paths, GET /data/{key} and POST /data, where the blog's were GET /api/{data} "
                 "and POST /api/")
_KT2020_DOCKER = "docker stats shows the container's cgroup memory less its inactive file pages (not RSS)"
_KT2020_DOCKER_REST = "memory.current less inactive_file at the end of kt2020load's quiet pause"
_KT2020_DOCKER_MAX = "the cgroup's peak under the load less the inactive file pages read at its end"


def _kt2020_latency_kinds() -> list[tuple]:
    """wrk's mean (Avg) and max latency of each of the blog's runs, one kind per run and figure."""
    out = []
    for run, by_label in KT2020_LATENCY_MS.items():
        method, stage = run.split()
        how = ("10 s on a freshly started app" if stage == "cold" else "15 min run on a warmed app")
        for what, metric, i in (("mean", "latency_mean_ms", 0), ("max-latency", "latency_max_ms", 2)):
            figures = {lbl: v[i] for lbl, v in by_label.items()}
            note = "" if stage == "cold" else "the blog ran it on Spring Boot only; here the long run of the last launch"
            out.append((f"{what}-{method.lower()}-{stage}", f"{what.split('-')[0]} latency, {method}, {how}", "ms",
                        Where("kt2020load", metric, run), figures, False, note,
                        f"wrk's {'Avg' if i == 0 else 'Max'} latency, -t2 -c10"))
    return out


def _kt2020_variants() -> list[Claim]:
    """KT-2020's figures against the blog's own services rebuilt here (kt2020load, startup), one
    claim per variant; the blog's Quarkus native figure has no counterpart among them."""
    kinds = [
        ("get", "GET /api/{data}, 10 s on a freshly started app, wrk -t2 -c10", "req/s",
         Where("kt2020load", "rps", "GET cold"), KT2020_GET, True, "", KT2020_RUN),
        ("post", "POST /api/, 10 s on a freshly started app, wrk -t2 -c10", "req/s",
         Where("kt2020load", "rps", "POST cold"), KT2020_POST, True, "",
         f"{KT2020_RUN}, a POST script"),
        ("soak-get", "15 min run on a warmed app, GET", "req/s", Where("kt2020load", "rps", "GET long"),
         KT2020_SOAK_GET, True, "the blog ran it on Spring Boot only; here the long run of the last launch",
         KT2020_LONG),
        ("soak-post", "15 min run on a warmed app, POST", "req/s", Where("kt2020load", "rps", "POST long"),
         KT2020_SOAK_POST, True, "the blog ran it on Spring Boot only; here the long run of the last launch",
         f"{KT2020_LONG}, a POST script"),
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
        *_kt2020_latency_kinds(),
    ]
    out = []
    for variant, mode in KT2020_VARIANTS.items():
        said = ("the blog's code as it published it, the variant comparable to the blog's figures" if mode == "as-published"
                else "the blog's code without its three costly choices, a variant the blog did not measure")
        for kind, what, unit, where, figures, higher, note, method in kinds:
            ours = {f"{label} {variant}": v for label, v in figures.items() if label in KT2020_APPS}
            raw = ({f"{label} {variant}": KT2020_WARM_LAUNCHES_MS[label] for label in figures if label in KT2020_APPS}
                   if kind == "launch" else {})
            out.append(_c(f"kt2020-{kind}-{mode}", "KT-2020", f"{what}: the blog's services {variant}", unit, where,
                          ours, higher, "; ".join(x for x in (f"{variant}: {said}", note) if x),
                          source=_KT2020_SOURCE.get(kind, "its wrk runs"), method=method, base=f"Spring {variant}",
                          raw=raw, passage=_kt2020_passage(kind, [lbl for lbl in figures if lbl in KT2020_APPS])))
    return out


_KT2020_SOURCE = {"launch": "the 11 launches listed per app", "first-launch": "the 11 launches listed per app",
                  "rest": "its memory listing", "max": "its memory listing", "artifact": "its artifact size listing"}


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
       raw=LAB20_3_1_RUNS, passage=_lab20_runs("SCENARIO 3.1", LAB20_3_1_RUNS)),
    _c("kt2020-launch", "KT-2020", "launch time from the log (median of the 10 launches after the first)", "ms",
       Where("startup", "framework_start_ms", "warm"), KT2020_LAUNCH_MS, False,
       KT2020_LAUNCH_NOTE + "; here: our contract apps", source="the 11 launches listed per app",
       method="the framework's own start line in the log; 11 launches, the first apart",
       raw=KT2020_WARM_LAUNCHES_MS, passage=_kt2020_passage("launch", KT2020_LAUNCHES_S)),
    _c("kt2020-first-launch", "KT-2020", "first launch from the log", "ms",
       Where("startup", "framework_start_ms", "cold"), KT2020_FIRST_LAUNCH_MS, False,
       "here: our contract apps", source="the 11 launches listed per app", method="the first of the 11 launches",
       passage=_kt2020_passage("first-launch", KT2020_LAUNCHES_S)),
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
       f"{_KT2020_DOCKER}; here: our contract apps, {_KT2020_DOCKER_REST}; {_KT2020_OWN}",
       source="its memory listing", method="docker stats at rest", passage=_kt2020_passage("rest", KT2020_REST_MB)),
    _c("kt2020-max", "KT-2020", "max memory under load (docker stats)", "MB",
       Where("kt2020load", "docker_peak_mb", "under load"), KT2020_MAX_MB, False,
       f"{_KT2020_DOCKER}; here: our contract apps in kt2020load, {_KT2020_DOCKER_MAX}; {_KT2020_OWN}",
       source="its memory listing", method="docker stats, highest value under wrk -t2 -c10 -d1m",
       passage=_kt2020_passage("max", KT2020_MAX_MB)),
    _c("lab2020-peak-rss", "LAB-2020", "1.3 peak RSS under load (GET todos, 8..56 connections)", "MB",
       Where("memory", "rss_peak_mb", "*"), {"A": 264, "Q-JVM": 214, "Q-native": 80}, False,
       "here: the plan's memory load path and connection count (the study's peak was at 40 connections for all "
       "three)", source="lab 1.3", method="RSS at each app's peak throughput over the load runs at 8..56 connections",
       passage=_LAB20_PEAK),
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
       method="the best of the load runs at 8..56 connections", passage=_LAB20_PEAK),
    # --- write
    # the blog's 10-s runs, read as on freshly started apps (KT2020_RUN): kt2020load loads those (plan kt2020);
    # the write scenario (other plans) loads the long-lived load instance instead, declared below
    _c("kt2020-get", "KT-2020", "GET /api/{data}, 10 s on a freshly started app, wrk -t2 -c10", "req/s",
       Where("kt2020load", "rps", "GET cold"), KT2020_GET, True, "here: our contract apps in kt2020load; " + _KT2020_OWN,
       source="its wrk runs", method=KT2020_RUN,
       passage=_kt2020_passage("get", KT2020_GET)),
    _c("kt2020-post", "KT-2020", "POST /api/, 10 s on a freshly started app, wrk -t2 -c10", "req/s",
       Where("kt2020load", "rps", "POST cold"), KT2020_POST, True, "here: our contract apps in kt2020load; " + _KT2020_OWN,
       source="its wrk runs", method=f"{KT2020_RUN}, a POST script",
       passage=_kt2020_passage("post", KT2020_POST)),
    _c("kt2020-get-write", "KT-2020", "GET /api/{data}, 10 s, wrk -t2 -c10, on the long-lived instance", "req/s",
       Where("write", "rps", "GET /data/{key}"), KT2020_GET, True,
       f"{_KT2020_WRITE}; {_KT2020_OWN}", source="its wrk runs", method=KT2020_RUN,
       passage=_kt2020_passage("get", KT2020_GET)),
    _c("kt2020-post-write", "KT-2020", "POST /api/, 10 s, wrk -t2 -c10, on the long-lived instance", "req/s",
       Where("write", "rps", "POST /data"), KT2020_POST, True, f"{_KT2020_WRITE}; {_KT2020_OWN}",
       source="its wrk runs", method=f"{KT2020_RUN}, a POST script",
       passage=_kt2020_passage("post", KT2020_POST)),
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
       method="pods started in a 2 GB namespace until one failed", passage=_LAB20_1_2B),
    _c("lab2020-pods-2gb-memory", "LAB-2020", "1.2B memory of the pods started in 2 GB", "MB",
       Where("density", "total_rss_mb", "*"), {"A": 1911, "Q-JVM": 1996, "Q-native": 1967}, False,
       "each app's own number of pods (12, 18 and 98): the study draws no ratio from these figures; here the "
       "fitted instances' summed RSS at rest", source="lab 1.2B", method="the pods' memory once no more would start",
       ratios=False, passage=_LAB20_1_2B),
    # --- scaleup, coldstart
    _c("lab2020-scaleup", "LAB-2020", "2.1 time to scale 0 -> 1 (Kubernetes)", "ms",
       Where("scaleup", "ready_ms", "warm", with_first=True),
       {"A": 49960, "Q-JVM": 30359, "Q-native": 9935}, False,
       "here: launch to readiness, no Kubernetes; the study's median includes the first run", source="lab 2.1",
       method="scale a deployment 0 -> 1, health endpoint probed every 0.5 s until ready; 3 runs, median, first "
              "included", raw=LAB20_2_1_RUNS, passage=_lab20_runs("SCENARIO 2.1", LAB20_2_1_RUNS)),
    _c("lab2020-coldstart-ttfr", "LAB-2020", "3.2 serverless time to first response, median", "ms",
       Where("coldstart", "ttfr_ms", "*"), {"A": 41770, "Q-JVM": 19871, "Q-native": 9237}, False,
       "the study's ratios of raw time to first response: Q-JVM \"roughly 47.6 %\" of A, compared as stated; "
       "Q-native's stated \"22.9 %\" is its printed median 9.585 s over A's, so its ratio is compared as the "
       "median of its listed runs gives it, 9.237 s over A's (see the contradictions); the Go reference answered "
       "after 9,534 ms (here: each pair's reference_ttfr_ms)",
       source="lab 3.2", method="serverless cold start to the first response; 3 runs, median",
       stated={"Q-JVM": 0.476}, raw=LAB20_3_2_RUNS, printed={"Q-native": 9585}, passage=_lab20_3_2()),
    _c("lab2020-coldstart", "LAB-2020", "3.2 time to first response minus the Go reference's",
       "ms", Where("coldstart", "ttfr_minus_reference_ms", "*"), {"A": 32236, "Q-JVM": 10337, "Q-native": 51}, False,
       "the study prints these differences but draws no ratio from them: the figures only", source="lab 3.2",
       method="the median above minus the Go reference's 9,534 ms", ratios=False, passage=_lab20_3_2()),
    # --- soak
    _c("kt2020-soak-get", "KT-2020", "15 min warmed run, GET", "req/s", Where("soak", "rps", ""), KT2020_SOAK_GET, True,
       "here: our contract apps, the plan's soak path; " + _KT2020_OWN, source="its wrk runs",
       method=KT2020_LONG, passage=_kt2020_passage("soak-get", KT2020_SOAK_GET)),
    _c("kt2020-soak-post", "KT-2020", "15 min warmed run, POST", "req/s", Where("soak", "rps", "POST /data"),
       KT2020_SOAK_POST, True, "the soak scenario here runs one GET path: no POST figure; " + _KT2020_OWN,
       source="its wrk runs", method=f"{KT2020_LONG}, a POST script",
       passage=_kt2020_passage("soak-post", KT2020_SOAK_POST)),
    _c("rt2019-soak", "RT-2019", "native soak: requests served in >3 h, stable", "count", Where("soak", "requests", ""),
       {"Q-native": 51.89e6}, True,
       "the body's \"over 51,890,000\"; the summary says \"over 33 MILLION\" (see the contradictions)",
       source="Quarkus native - Long running processes", method="wrk for more than 3 h against the native image",
       passage=("Quarkus native - Long running processes", "51,890,000")),
    # --- footprint
    _c("kt2020-artifact", "KT-2020", "artifact size", "MB", Where("footprint", "artifact_mb", ""),
       KT2020_ARTIFACT_MB, False, source="its artifact size listing", method="the built artifact's size",
       passage=_kt2020_passage("artifact", KT2020_ARTIFACT_MB)),
    # --- KT-2020's own services, per variant (kt2020 plan)
    *_kt2020_variants(),
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


def target_of(label: str) -> str:
    return TARGETS[label]


def claim(key: str) -> Claim:
    return next(c for c in CLAIMS if c.key == key)
