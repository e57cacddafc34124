"""Each study's method as data: the settings it used, in the plan's keys, so a study's plan can be
checked for every way it differs from its study.

A plan declares a deviation with a reduction that starts with the plan key(s) it concerns
("limits.cpus: the study's cgroup had 4 cores ..."); reductions without a key describe differences
no plan key expresses (a separate load machine, Kubernetes, older framework versions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from perflab import apps
from perflab.errors import LabError
from perflab.present.published import devloop_claims
from perflab.present.published.studies import STUDIES, target_of


NOT_STATED = "not stated"  # a setting the study does not state: whatever the plan chose is declared


@dataclass(frozen=True)
class Setting:
    key: str  # a plan key ("limits.cpus") or a derived one (see DERIVED)
    value: Any  # the study's; None: the study says it set no limit (the whole machine); NOT_STATED; or words
    said: str  # what the study says about it
    at_least: bool = False  # a ceiling: the plan may allow more, not less
    # where the study's text states the value: strings found in order in its text (see
    # studies.TEXTS); every value but NOT_STATED has one, and a test reads the value in it
    passage: tuple[str, ...] = ()

    def follows(self, planned: Any) -> bool:
        if self.value is None or self.value == NOT_STATED:
            return False  # the study ran unlimited, or did not say: any value here is the plan's choice
        if self.at_least:
            return planned is not None and planned >= self.value
        return planned == self.value


def _series(plan: dict) -> list[dict]:
    return plan.get("sweep", {}).get("series", [])


def _limits_text(plan: dict) -> str | None:
    limits = plan.get("limits", {})
    return f"{limits['cpus']} CPU / {limits['memory_mb']} MB" if "cpus" in limits and "memory_mb" in limits else None


def _native_heap(plan: dict) -> list[str]:
    """The heap options the studies' Quarkus native (Q-native) is launched with under this plan, as
    its descriptor renders the plan's JVM options now."""
    app, mode = target_of("Q-native").split("/")
    found = apps.get(app)
    argv, _ = apps.launch_argv(found.for_mode(mode), found.mode(mode),
                               jvm_opts=apps.mode_jvm_opts(found.mode(mode), plan.get("limits", {})))
    return [arg for arg in argv if arg.startswith("-X")]


def _framework_a_steps(plan: dict) -> str:
    """The steps the lab's stop-rebuild-restart loop takes for Spring Boot (LAB-2020's Framework A)."""
    return ", ".join(devloop_claims.LAB_STEPS["Framework A"])


def _stream_library(plan: dict) -> str:
    """The library the Quarkus stream app's processor is written with, as its build names it."""
    try:
        pom = (apps.get(STREAM_APP).dir / "pom.xml").read_text()
    except (LabError, OSError):
        return "no stream app among the apps"
    uses = set(re.findall(r"<artifactId>([^<]+)</artifactId>", pom))
    return ("Kafka Streams (quarkus-kafka-streams)" if "quarkus-kafka-streams" in uses
            else "SmallRye Reactive Messaging (quarkus-messaging-kafka)" if "quarkus-messaging-kafka" in uses
            else "neither Kafka Streams nor Reactive Messaging")


STREAM_APP = "stream-quarkus"


def _ramp(plan: dict) -> str:
    """The memory scenario's ramp before its warm-up (the connections default to memory's own 2)."""
    memory = plan.get("memory", {})
    ramp_s = memory.get("ramp_s", 0)
    return f"{ramp_s:g} s at {memory.get('ramp_connections', 2)} connections" if ramp_s else "no ramp"


def _native_warmup(plan: dict) -> str:
    """The sweep's warm-up: one setting, so Quarkus native gets it as every other app does."""
    warmup = plan.get("sweep", {}).get("warmup_s")
    if warmup is None:
        return "the sweep's default warm-up, for every app and mode"
    return f"{warmup:g} s for every app and mode" if warmup else "none"


# Plan facts no single key holds.
DERIVED: dict[str, Callable[[dict], Any]] = {
    "sweep.paths": lambda plan: sorted({s["path"] for s in _series(plan)}),
    "sweep.connections": lambda plan: ([min(c for s in _series(plan) for c in s["connections"]),
                                        max(c for s in _series(plan) for c in s["connections"])]
                                       if _series(plan) else None),
    "startup.limits": _limits_text,  # a plan has one set of limits: start-up runs under them
    "memory.ramp": _ramp,
    "sweep.native_warmup": _native_warmup,
    "limits.native_heap": _native_heap,
    # facts of the lab itself, no plan key changes: each differs from the study, always declared
    "limits.isolation": lambda plan: "processes in a cgroup",
    "sweep.driver": lambda plan: "wrk, closed loop, a warm-up then the measured run",
    "devloop.steps": _framework_a_steps,
    "devloop.extensions": lambda plan: "not exercised",
    "devloop.stream_library": _stream_library,
}

_RT_TABLE_1 = ("Table 1. Maximum Throughput (Req/Sec)", "Concurrent Connections", "1 3,273 3,316 5,138",
               "40 32,391 44,841 76,488")
_LAB_CGROUPS = ("Bare-Metal Environment A", "CGroups limit used 4 cores, 256 MB", "Bare-Metal Environment B",
                "CGroups limit used 4 cores, 256 MB")
_LAB_JOB = ("a Jenkins-based environment to schedule the job", "rampUp:", 'users: "{DRIVER_THREADS}"',
            'duration: "{RAMP_UP_DURATION}"', 'GET: "/api"', "steadyState:", 'users: "{DRIVER_THREADS}"')
_LAB_NATIVE_WARMUP = ("Before the actual test is executed, there is a warm-up period",
                      "this is not needed for quarkus-native")
_KT_WRK = ("#### Testing performance", "min 10, max 100", "2 simultaneous threads and 10 connections",
           "duration of 10 seconds")

METHODS: dict[str, tuple[Setting, ...]] = {
    "RT-2019": (
        Setting("limits.cpus", NOT_STATED, "app and database ran in Docker, the load from a separate client machine; "
                                           "no CPU limit of the containers is given"),
        Setting("limits.memory_mb", NOT_STATED, "app and database ran in Docker; no memory limit of the containers "
                                                "is given"),
        Setting("startup.runs", NOT_STATED, "how many launches the start time was taken over"),
        Setting("sweep.warmup_s", NOT_STATED, "the warm-up before each throughput run"),
        Setting("sweep.duration_s", NOT_STATED, "each throughput run's duration"),
        Setting("sweep.paths", NOT_STATED, "the path its wrk script loaded (the script is not shown; the runtime "
                                           "check requests GET /fruits)"),
        Setting("sweep.connections", [1, 40], "1..40 connections", passage=_RT_TABLE_1),
        Setting("memory.load_path", NOT_STATED, "max RSS over the throughput runs, whose path is not given"),
        Setting("memory.load_connections", 40, "the runs went up to 40 connections",
                passage=(*_RT_TABLE_1, "Maximum Memory Usage")),
        Setting("density.budget_mb", 2048, "processes per 2048 MB", passage=("Number processes per 2048MB",)),
        Setting("density.max_instances", 16, "16 native processes", at_least=True,
                passage=("Number processes per 2048MB", "Quarkus - Native 122 16")),
        Setting("soak.path", NOT_STATED, "the path of the native image's long run"),
        Setting("soak.duration_s", 10800.0, "more than 3 h", at_least=True,
                passage=("Quarkus native - Long running processes", "more than 3hrs")),
    ),
    "LAB-2020": (
        Setting("limits.cpus", 4, "bare-metal cgroup of 4 cores, labs 1.3 and 3.1", passage=_LAB_CGROUPS),
        Setting("limits.memory_mb", 256, "bare-metal cgroup of 256 MB, labs 1.3 and 3.1", passage=_LAB_CGROUPS),
        Setting("limits.jvm_opts", ["-Xmx64m"], "heap -Xmx64m for all",
                passage=("Spring Dockerfile:", 'JAVA_OPTIONS="-Xmx64m', "Quarkus JVM Dockerfile:",
                         'JAVA_OPTIONS="-Xmx64m')),
        Setting("limits.native_heap", ["-Xms32m", "-Xmx64m", "-Xmn32m"],
                "the native image's command in the appendix: -Xms32m -Xmx64m -Xmn32m",
                passage=("Quarkus Native Dockerfile:", '"-Xms32m", "-Xmx64m", "-Xmn32m"')),
        Setting("limits.isolation", "Podman containers", "labs 1.1, 1.3 and 3.1 ran Podman containers on bare metal",
                passage=("Bare-Metal Environment A", "Container system Podman")),
        Setting("startup.limits", "1 CPU / 500 MB", "lab 1.1, RSS after the first request, ran in 1 core / 500 MB",
                passage=("Code and configuration for Lab 1.1", "set to 1 core", "set to 500 MB")),
        Setting("startup.runs", 3, "lab 3.1 lists 3 runs and their median, the first included",
                passage=("SCENARIO 3.1", "First Run Second Run Third Run Median")),
        Setting("placement.kind", "kubernetes", "labs 1.2, 2.1 and 3.2 ran pods on Kubernetes; 1.1, 1.3 and 3.1 "
                                                "ran on bare metal",
                passage=("Container Orchestration Cluster", "Kubernetes version OpenShift 4.2")),
        Setting("sweep.paths", ["/api"], "lab 1.3's load job requests GET /api, the list of all todos",
                passage=_LAB_JOB),
        Setting("sweep.connections", [8, 56], "8..56 connections",
                passage=("Throughput versus number of concurrent users", "8 1375 req/sec", "56 3578 req/sec")),
        Setting("sweep.driver", "a job scheduled by Jenkins, its rampUp phase then its steadyState phase",
                "lab 1.3's load job in the appendix, its durations not given; the text names no load tool",
                passage=_LAB_JOB),
        Setting("sweep.native_warmup", "no warm-up for quarkus-native",
                "lab 1.3's job warms the JVM apps up before each test, and not quarkus-native, optimized at build time",
                passage=_LAB_NATIVE_WARMUP),
        Setting("memory.ramp", "the steady phase's users (DRIVER_THREADS) for RAMP_UP_DURATION, not given",
                "lab 1.3's job ramps up at the same number of users as its steady state", passage=_LAB_JOB),
        Setting("memory.load_path", "/api", "memory under load on lab 1.3's GET /api", passage=_LAB_JOB),
        Setting("memory.load_connections", 40, "lab 1.3's memory and req/s per MB are at each app's peak "
                                                "throughput, which its table puts at 40 connections for all three",
                passage=("Throughput versus number of concurrent users", "40 3697 req/sec 6396 req/sec 3266 req/sec",
                         "Memory usage for peak load (MEM_PEAK)")),
        Setting("density.budget_mb", 2048, "pods in 2 GB",
                passage=("SCENARIO 1.2B", "The number of pods that can be started with 2 GB")),
        Setting("density.max_instances", 98, "98 native pods", at_least=True,
                passage=("SCENARIO 1.2B", "Quarkus on Native 98 1967 MB")),
        Setting("startup.poll_ms", 100.0, "lab 3.1 probed the health endpoint every 0.1 s",
                passage=("Code and configuration for Lab 3.1", "every 0.1 second")),
        Setting("scaleup.runs", 3, "lab 2.1: 3 runs, median",
                passage=("SCENARIO 2.1", "First Run Second Run Third Run Median")),
        Setting("scaleup.poll_ms", 500.0, "lab 2.1 probed the health endpoint every 0.5 s",
                passage=("Code and configuration for Lab 2.1", "every 0.5 second")),
        Setting("coldstart.runs", 3, "lab 3.2: 3 runs, median",
                passage=("Code and configuration for Lab 3.2", "After three measurements")),
        Setting("coldstart.reference", "go-reference", "lab 3.2: a Go app as the reference",
                passage=("SCENARIO 3.2", "Go (for reference)")),
        Setting("devloop.steps", "make a project change, stop the service, start the service, test the change, "
                                 "run the Framework A app, test", "lab 4.1.1's steps for Framework A",
                passage=("SCENARIO 4.1.1", "Make a project change", "Stop the service", "Start the service",
                         "Test the change", "Run the Framework A app", "Test")),
        Setting("devloop.extensions", "adding extensions to a Quarkus Maven project, on H2 (quarkus-jdbc-h2)",
                "lab 4.1.1 counted the steps of adding extensions",
                passage=("SCENARIO 4.1.1", "adding extensions to Quarkus Maven projects", "quarkus-jdbc-h2")),
        Setting("devloop.stream_library", "Kafka Streams (quarkus-kafka-streams) and SmallRye Reactive Messaging "
                                          "(quarkus-smallrye-reactive-messaging)", "lab 4.1.2's extensions",
                passage=("SCENARIO 4.1.2", "quarkus-kafka-streams", "quarkus-smallrye-reactive-messaging")),
        Setting("cost.replicas", 1, "the savings leave out the 7 to 10 instances of a service across environments "
                                    "the study names (one instance each)",
                passage=("In calculating cost savings", "one production-grade service")),
    ),
    # the blog's method as its plan (kt2020) runs it: startup for the launches, kt2020load for the rest
    "KT-2020": (
        Setting("limits.cpus", NOT_STATED, "docker containers; the blog states no CPU limit of them"),
        Setting("limits.memory_mb", NOT_STATED, "docker containers; the blog states no memory limit of them"),
        Setting("limits.pool_min", 10, "the connection pool's minimum: 10", passage=_KT_WRK),
        Setting("limits.pool_max", 100, "the connection pool's maximum: 100", passage=_KT_WRK),
        Setting("startup.runs", 11, "11 launches, the first apart",
                passage=("#### Application launch time", "Number of attempts: 11")),
        Setting("kt2020load.launches", NOT_STATED, "how many times the load runs were repeated"),
        Setting("kt2020load.rest_s", NOT_STATED, "how long the app rested before memory at rest was read"),
        Setting("kt2020load.warmup_s", NOT_STATED, "whether anything warmed Spring Boot before its 15-minute runs: "
                                                   "the heading \"(warming up JVM)\" reads as if the 15 minutes "
                                                   "were the warm-up; a warm-up before them is the lab's reading"),
        Setting("kt2020load.threads", 2, "wrk -t2", passage=_KT_WRK),
        Setting("kt2020load.connections", 10, "wrk -c10, for the runs and the memory load", passage=_KT_WRK),
        Setting("kt2020load.run_s", 10, "wrk for \"duration of 10 seconds\"; that each ran on a freshly started "
                                        "app is the lab's reading (the text says neither cold nor freshly started)",
                passage=_KT_WRK),
        Setting("kt2020load.long_s", 900, "the 15-minute runs; the lab reads them as on a warmed app, where "
                                          "their heading \"long run test (warming up JVM)\" can read as the warm-up",
                passage=("#### Spring Boot long run test", "duration of 15 min")),
        Setting("kt2020load.memory_load_s", 60, "max memory under wrk -t2 -c10 -d1m",
                passage=("#### Application memmory usage", "wrk -t2 -c10 -d1m")),
    ),
}

# The built-in plan of each study.
STUDY_PLANS = {"rt2019": "RT-2019", "lab2020": "LAB-2020", "kt2020": "KT-2020",
               "rt2019-full": "RT-2019", "lab2020-full": "LAB-2020", "kt2020-full": "KT-2020"}  # *-full: the long forms


def plan_value(plan: dict, key: str) -> Any:
    if key in DERIVED:
        return DERIVED[key](plan)
    value: Any = plan
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def declared_keys(reductions: list[str]) -> set[str]:
    """The plan keys reductions declare: each one's text before its first ": ", split at ", "."""
    keys = set()
    for text in reductions:
        head, sep, _ = text.partition(": ")
        if sep and " " not in head.replace(", ", ","):
            keys |= {k.strip() for k in head.split(",")}
    return keys


def runs(plan: dict, key: str) -> bool:
    """Whether a setting acts in this plan: limits always, a scenario's keys when it is planned."""
    top = key.split(".", 1)[0]
    return top in ("limits", "topology", "placement", "cost") or top in plan.get("scenarios", [top])


def deviations(plan: dict, study: str) -> list[tuple[Setting, Any]]:
    """Every recorded setting of the study the plan does not follow (of the scenarios it runs),
    with the plan's value."""
    return [(s, plan_value(plan, s.key)) for s in METHODS[study]
            if runs(plan, s.key) and not s.follows(plan_value(plan, s.key))]


def _shown(value: Any) -> str:
    if value is None:
        return "no limit"
    if value == []:
        return "none"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)
    return f"{value:g}" if isinstance(value, float) else f"{value}"


def against_study(plan: dict) -> tuple[str, list[str]] | None:
    """For a study's plan: the study's versions and environment, then every recorded setting of the
    study, what the plan does, and whether a reduction declares the difference; None for a plan
    that is no study's."""
    study = STUDY_PLANS.get(plan.get("name", ""))
    if study is None:
        return None
    declared = declared_keys(plan.get("reductions", []))
    lines = STUDIES[study].facts()
    for s in METHODS[study]:
        planned = plan_value(plan, s.key)
        verdict = ("not run in this plan" if not runs(plan, s.key) else "as the study" if s.follows(planned)
                   else "differs, declared below" if s.key in declared else "differs, NOT declared")
        lines.append(f"{s.key}: study {_shown(s.value)}{' or more' if s.at_least else ''} ({s.said}); "
                     f"here {_shown(planned)}: {verdict}")
    return study, lines


def undeclared(plan: dict, study: str) -> list[str]:
    """Deviations from the study's method that no reduction of the plan declares."""
    declared = declared_keys(plan.get("reductions", []))
    return [f"{s.key}: the study {_shown(s.value)} ({s.said}), the plan {_shown(planned)}"
            for s, planned in deviations(plan, study) if s.key not in declared]


def unstated(plan: dict) -> list[str]:
    """Keyed reductions that no longer state the plan's value of a key they declare (a plan key,
    not a derived fact): the setting changed and its reduction was not rewritten."""
    out = []
    for text in plan.get("reductions", []):
        for key in sorted(declared_keys([text])):
            value = None if key in DERIVED else plan_value(plan, key)
            if value is None or isinstance(value, (dict, bool)):
                continue
            shown = _shown(value)
            if not re.search(rf"(?<![\w.]){re.escape(shown)}(?![\w]|\.\d)", text.partition(": ")[2]):
                out.append(f"{key}: the plan has {shown}, its reduction does not say so: {text}")
    return out
