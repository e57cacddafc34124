"""KT-2020's figures as the blog prints them, the passages that print them, and its claims per service variant."""

from __future__ import annotations

from statistics import median as _median

from perflab.present.published.claim_types import Claim, Where
from perflab.present.published.claim_types import build as _c
from perflab.present.published.studies import KT2020_APPS, KT2020_VARIANTS

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


def kt2020_passage(kind: str, labels) -> tuple[str, ...]:
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
KT2020_OWN = "the blog's own services are compared in kt2020load (the claims of each variant)"
KT2020_WRITE = ("the write scenario loads the run's long-lived load instance, where the blog loaded a freshly "
                 "started app (plan kt2020 compares our contract apps as the blog did, in kt2020load), and on the "
                 "contract apps' own paths, GET /data/{key} and POST /data, where the blog's were GET /api/{data} "
                 "and POST /api/")
KT2020_DOCKER = "docker stats shows the container's cgroup memory less its inactive file pages (not RSS)"
KT2020_DOCKER_REST = "memory.current less inactive_file at the end of kt2020load's quiet pause"
KT2020_DOCKER_MAX = "the cgroup's peak under the load less the inactive file pages read at its end"


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


def kt2020_variants() -> list[Claim]:
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
         KT2020_REST_MB, False, f"{KT2020_DOCKER}; here {KT2020_DOCKER_REST}", "docker stats at rest"),
        ("max", "max memory under load (docker stats)", "MB", Where("kt2020load", "docker_peak_mb", "under load"),
         KT2020_MAX_MB, False, f"{KT2020_DOCKER}; here {KT2020_DOCKER_MAX}",
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
                          raw=raw, passage=kt2020_passage(kind, [lbl for lbl in figures if lbl in KT2020_APPS])))
    return out


_KT2020_SOURCE = {"launch": "the 11 launches listed per app", "first-launch": "the 11 launches listed per app",
                  "rest": "its memory listing", "max": "its memory listing", "artifact": "its artifact size listing"}
