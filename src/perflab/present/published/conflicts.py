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

from perflab.present.published import attributes
from perflab.present.published.claims import claim
from perflab.present.published.curves import RT2019_LABELS, peak, rt2019_column
from perflab.present.published.kt2020_figures import KT2020_POST
from perflab.present.published.lab2020_figures import LAB20_1_3_LABELS, LAB20_1_3_TABLE, LAB20_3_2_GO_RUNS
from perflab.present.published.projection import printed as printed_projection


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
            f"{c.value('A') / m:.2f}x, as the summary's \"~4.5x\" says ({c.value('A') / dict(c.printed)['Q-native']:.2f}x "
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


def _native_3_2_speedup() -> str:
    c = claim("lab2020-coldstart-ttfr")
    a, printed, compared = c.value("A"), dict(c.printed)["Q-native"], c.value("Q-native")
    return (f"A / native is {a / printed:.2f}x with the printed median {printed / 1000:.3f} s (the body's "
            f"\"4.4\") and {a / compared:.2f}x with the median of the listed runs, "
            f"{compared / 1000:.3f} s (the summary's \"~4.5x\"): one figure, two medians")


def _lab_3_2_delay() -> str:
    go = sorted(LAB20_3_2_GO_RUNS)
    return (f"the Go reference, which stands for that delay, answered after "
            f"{', '.join(f'{v / 1000:.3f}' for v in LAB20_3_2_GO_RUNS)} s (median {median(go) / 1000:.3f} s): its "
            f"median is above the footnote's 9.5 s, and its runs span {go[0] / 1000:.3f} to {go[-1] / 1000:.3f} s")


def _rising_1_3() -> str:
    counts = sorted(LAB20_1_3_TABLE)
    falls = [f"{label} {LAB20_1_3_TABLE[a][i]:g} -> {LAB20_1_3_TABLE[b][i]:g} req/s from {a} to {b} connections"
             for i, label in enumerate(LAB20_1_3_LABELS) for a, b in zip(counts, counts[1:])
             if b <= 40 and LAB20_1_3_TABLE[b][i] < LAB20_1_3_TABLE[a][i]]
    return (f"the table's rows are {', '.join(map(str, counts))} connections (none at 10); up to 40 it falls for "
            + ("; ".join(falls) if falls else "none"))


def _native_1_1() -> str:
    c = claim("lab2020-rss-first")
    return (f"1 - {c.value('Q-native'):g}/{c.value('A'):g} MB = {_pct(1 - c.value('Q-native') / c.value('A'))}: "
            f"the lab's \"~89%\" is its own figures', the summary's \"~90%\" rounds further")


def _two_throughput_bases() -> str:
    """RT-2019's two gains of native over Thorntail: at 40 connections, and peak against peak."""
    native, thorntail = rt2019_column("rps", "Q-native")[40], rt2019_column("rps", "Thorntail")[40]
    (n_at, n_peak), (t_at, t_peak) = peak("rps", "Q-native"), peak("rps", "Thorntail")
    return (f"both follow from Table 1 on different bases: at 40 connections {native:,.0f} / {thorntail:,.0f} = "
            f"+{_pct(native / thorntail - 1)} (a single process at the same load); each one's maximum over the "
            f"table gives +{_pct(n_peak / t_peak - 1)} (native's {n_peak:,.0f} at c={n_at} against Thorntail's "
            f"{t_peak:,.0f} at c={t_at}, the per-process figures of the 2048 MB table)")


def _pods_caption() -> str:
    c = claim("lab2020-pods-2gb")
    counts = ", ".join(f"{label} {c.value(label):g}" for label in LAB20_1_3_LABELS)
    return (f"the table above the caption counts {counts} pods, none of them 10; the caption repeats lab 1.2A's, "
            f"whose table is the memory of 10 pods of each app")


def _coldstart_link() -> str:
    c = claim("lab2020-coldstart")
    return (f"lab 3.2's table prints the differences for Framework A ({c.value('A') / 1000:.3f} s), Quarkus JVM and "
            f"Quarkus Native: the first of the three values the Go median is deducted from is Framework A's")


def _attr_pct(name: str) -> str:
    return f"{attributes.printed(name):g} %"


def _words(name: str, template: str) -> str:
    return template.format(attributes.printed(name))


CONTRADICTIONS: list[Contradiction] = [
    Contradiction("rt2019-soak-count", "RT-2019", "requests served by the native soak",
                  (_words("quarkusNativeNumberRequestsMillion", 'summary: "served over {:g} MILLION requests"'),
                   f'body: "over {claim("rt2019-soak").value("Q-native"):,.0f}"'), _soak_count,
                  "51,890,000 (the body's figure)", "rt2019-soak"),
    Contradiction("rt2019-soak-duration", "RT-2019", "how long the native soak ran",
                  ('summary: "ran for up to 3 hours"', 'body: "for more than 3hrs at a time"'),
                  lambda: "no figure settles it: the summary caps at 3 h what the body puts above 3 h",
                  "at least 3 h (the body's; soak.duration_s)", "rt2019-soak"),
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
                  ('"9.237s, 9.076s, 9.585s"', '"MED: 9.585s"'), _native_3_2_median,
                  "9.237 s, the median of the study's own three runs", "lab2020-coldstart-ttfr"),
    Contradiction("lab2020-3.2-ratio", "LAB-2020", "lab 3.2 ratios of time to first response",
                  ('"roughly 47.6%"', '"22.9%"'), _native_3_2_ratio,
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
    Contradiction("lab2020-3.2-speedup", "LAB-2020", "lab 3.2 native's speed-up against A",
                  ('summary: "~4.5x faster than Framework A"', 'lab 3.2: "4.4 times faster than Framework A"'),
                  _native_3_2_speedup, "the median of the listed runs (9.237 s), as the other 3.2 entries",
                  "lab2020-coldstart-ttfr"),
    Contradiction("lab2020-3.2-delay", "LAB-2020", "lab 3.2's platform delay",
                  ('footnote: "a start-up time-related delay of 9.0 to 9.5 seconds"',
                   'appendix: "an overhead of approximately 10 seconds"'), _lab_3_2_delay,
                  "neither: each pair here takes its own reference launch (reference_ttfr_ms)", "lab2020-coldstart"),
    Contradiction("lab2020-1.1-limits", "LAB-2020", "lab 1.1's container limits",
                  ('lab 1.1: "see “Bare-Metal Environment A”", whose "CGroups limit used 4 cores, 256 MB"',
                   'its appendix: "set to 1 core", "set to 500 MB"'),
                  lambda: ("the lab points to an environment of 4 cores / 256 MB and its own code section sets 1 core "
                           "/ 500 MB; the text does not say which limit its figures had"),
                  "lab 1.1's own 1 core / 500 MB (startup.limits), declared where the plan differs",
                  "lab2020-rss-first"),
    Contradiction("lab2020-1.1-native", "LAB-2020", "lab 1.1 native's memory reduction",
                  ('summary: "reduced memory usage by ~90%"', 'lab 1.1: "reduced memory usage by ~89%"'), _native_1_1,
                  "the figures 21 and 187 MB", "lab2020-rss-first"),
    Contradiction("lab2020-3.1-environment", "LAB-2020", "where lab 3.1 ran",
                  ("lab 3.1: containers on bare metal (Bare-Metal Environment A), its script container_runtime=podman",
                   'its appendix: "scaling up and scaling down the number of pods from 0 to 1 on the Kubernetes '
                   'cluster"'),
                  lambda: ("the appendix's sentence for lab 3.1 repeats lab 2.1's (with 0.1 s for 0.5 s); the lab's "
                           "own section and its script put it on Podman on bare metal"),
                  "launch to readiness of a local process, as lab 3.1's own section describes", "lab2020-ttfr"),
    Contradiction("lab2020-1.3-rising", "LAB-2020", "lab 1.3's throughput as connections grow",
                  ('"throughput increased as the number of concurrent connections increased from 10 to 40", '
                   'for all three',), _rising_1_3, "the table as printed, its peak per app", "lab2020-peak-rps"),
    Contradiction("lab2020-1.2B-pods", "LAB-2020", "lab 1.2B pods of Quarkus JVM against A",
                  ('"~1.5x more pods"', '"roughly 1.25 times as many"'), _pods_ratio,
                  "the counts 18 and 12 (1.5x)", "lab2020-pods-2gb"),
    Contradiction("rt2019-throughput-bases", "RT-2019", "native's throughput gain over Thorntail",
                  (_words("quarkusNativeMaxThroughputIncrease",
                          'summary: "up to an {:g}% increase in maximum throughput"'),
                   _words("quarkusNativeThroughputCompareThorntail", 'memory section: "to service {:g}% more requests"')),
                  _two_throughput_bases, "Table 1's 40-connection row (rt2019-rps-40); each one's maximum in the "
                  "2048 MB projection", "rt2019-rps-40"),
    Contradiction("lab2020-appendix-headings", "LAB-2020", "the appendix's headings of labs 1.1 to 1.3",
                  ('labs 1.2 and 1.3 point to "Appendix: Code and configuration for Lab 1.2" and "Appendix: Code and '
                   'configuration for Lab 1.3"',
                   'the appendix heads all three sections "Code and configuration for Lab 1.1"'),
                  lambda: ("no figure settles it: the second section opens \"Lab 1.2 uses the same code as Lab 1.1\" "
                           "and the third \"The code in Lab 1.3 is the same\", so each section's first sentence names "
                           "its lab"),
                  "the sections read by their first sentences: lab 1.1's 1 core / 500 MB from the first, lab 1.3's "
                  "GET /api from the third", "lab2020-rss-first"),
    Contradiction("lab2020-1.2B-caption", "LAB-2020", "the caption of lab 1.2B's chart",
                  ('"Number of pods that can be started with 2 GB"', 'its caption: "Memory usage for 10 instances"'),
                  _pods_caption, "the table's counts (12, 18 and 98 pods)", "lab2020-pods-2gb"),
    Contradiction("lab2020-3.2-link", "LAB-2020", "what lab 3.2 deducts the Go median from",
                  ('appendix: "This value was then deducted from the values for" a link to the HTTP client\'s site, '
                   '"Quarkus JVM, and Quarkus Native"', 'the script deploys "all four applications"'),
                  _coldstart_link, "Framework A's time minus the Go reference's, as lab 3.2's table prints it",
                  "lab2020-coldstart"),
    Contradiction("kt2020-post-script", "KT-2020", "the script of Quarkus JVM's POST run",
                  ('Quarkus on JVM, POST: "perfPostObjQuarkusNative.sh"',
                   'its wrk output loads "quarkus-vs-spring-app-quarkus-jvm:8080/api/"'),
                  lambda: (f"the run names the native app's script but loads the JVM app, and its "
                           f"{KT2020_POST['Q-JVM']:g} req/s differs from the native POST run's "
                           f"{KT2020_POST['Q-native']:g}: it is a JVM run under a wrong script name"),
                  f"{KT2020_POST['Q-JVM']:g} req/s as Quarkus JVM's", "kt2020-post"),
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
