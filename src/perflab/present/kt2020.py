"""KT-2020's tables: the blog's figures beside the ones measured here for its two services as
published, the same services fixed, and our contract apps as a modern third point; and a short
reading of how much of the blog's Spring-over-Quarkus lead each variant keeps.

The blog's figures (Spring Boot 2 and Quarkus 1.3.1.Final on the JVM, Kotlin 1.3.71, H2) are kept
in published.kt2020_figures, as published; the blog measured no "fixed" services and no warm 10 s runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from perflab.present.published import kt2020_figures as published
from perflab.present.tables import Table, fmt_published, fmt_ratio
from perflab.results import Cell, RunView

SCENARIO = "kt2020load"


@dataclass(frozen=True)
class Framework:
    name: str
    kt_app: str     # the blog's service rebuilt here
    contract: str   # our contract app of the same framework (app/mode)


SPRING = Framework("Spring Boot", "kt2020-spring", "spring-boot/jvm")
QUARKUS = Framework("Quarkus", "kt2020-quarkus", "quarkus/jvm")
FRAMEWORKS = (SPRING, QUARKUS)
COLUMNS = ("as published", "fixed", "contract app")
VARIANT_MODES = {"as published": "as-published", "fixed": "fixed"}


@dataclass(frozen=True)
class Figure:
    """One of the blog's figures: where the lab stores the measured one, and the blog's values
    (text, as the blog gave them; absent: the blog did not measure it)."""

    title: str
    scenario: str
    metric: str
    point: str
    blog: dict[str, str]


def _blog(figures: dict[str, float]) -> dict[str, str]:
    """The blog's JVM figures (published.kt2020_figures holds them) under the frameworks' names."""
    labels = {SPRING.name: "Spring", QUARKUS.name: "Q-JVM"}
    return {fw: fmt_published(figures[label]) for fw, label in labels.items() if label in figures}


THROUGHPUT = (
    Figure("GET 10 s, fresh app (cold)", SCENARIO, "rps", "GET cold", _blog(published.KT2020_GET)),
    Figure("POST 10 s, fresh app (cold)", SCENARIO, "rps", "POST cold", _blog(published.KT2020_POST)),
    Figure("GET 10 s after a warm-up", SCENARIO, "rps", "GET warm", {}),
    Figure("POST 10 s after a warm-up", SCENARIO, "rps", "POST warm", {}),
    Figure("GET, long run on the warmed app", SCENARIO, "rps", "GET long", _blog(published.KT2020_SOAK_GET)),
    Figure("POST, long run on the warmed app", SCENARIO, "rps", "POST long", _blog(published.KT2020_SOAK_POST)),
)
START_AND_MEMORY = (
    Figure("launch time from the log, median of the 10 launches after the first, ms", "startup",
           "framework_start_ms", "warm", _blog(published.KT2020_LAUNCH_MS)),
    Figure("first launch from the log, ms", "startup", "framework_start_ms", "cold",
           _blog(published.KT2020_FIRST_LAUNCH_MS)),
    Figure("artifact (uber-jar), MB", "footprint", "artifact_mb", "", _blog(published.KT2020_ARTIFACT_MB)),
    Figure("RSS at rest, MB", SCENARIO, "rss_rest_mb", "at rest", {}),
    Figure("cgroup memory at rest, MB", SCENARIO, "cgroup_rest_mb", "at rest", {}),
    Figure("memory at rest as docker stats shows it, MB", SCENARIO, "docker_rest_mb", "at rest",
           _blog(published.KT2020_REST_MB)),
    Figure("peak RSS under the 1-minute load, MB", SCENARIO, "rss_peak_mb", "under load", {}),
    Figure("peak cgroup memory under the 1-minute load, MB", SCENARIO, "cgroup_peak_mb", "under load", {}),
    Figure("peak memory under the 1-minute load as docker stats shows it, MB", SCENARIO, "docker_peak_mb",
           "under load", _blog(published.KT2020_MAX_MB)),
)
# Spring over Quarkus as the blog published it (req/s)
BLOG_RATIOS = {"GET cold": published.KT2020_GET["Spring"] / published.KT2020_GET["Q-JVM"],
               "POST cold": published.KT2020_POST["Spring"] / published.KT2020_POST["Q-JVM"]}


def _cell(view: RunView, fig: Figure, fw: Framework, column: str) -> Cell | None:
    if column == "contract app":
        app, mode = fw.contract.split("/")
    else:
        app, mode = fw.kt_app, VARIANT_MODES[column]
    modes = (mode, "all") if fig.scenario == "footprint" else (mode,)  # one build serves both variants
    return next((c for c in view.find(fig.scenario, fig.metric, fig.point) if c.app == app and c.mode in modes), None)


def _table(view: RunView, key: str, title: str, figures: tuple[Figure, ...], note: str) -> Table | None:
    rows = []
    for fig in figures:
        for fw in FRAMEWORKS:
            cells = [_cell(view, fig, fw, col) for col in COLUMNS]
            if any(cells):
                rows.append((f"{fig.title}: {fw.name} (blog: {fig.blog.get(fw.name, 'not measured')})", cells))
    return Table(key, title, "figure: framework (the blog's value)", list(COLUMNS), rows, note) if rows else None


def tables(view: RunView) -> list[Table]:
    out = [
        _table(view, "kt2020-throughput", "KT-2020: throughput, wrk -t2 -c10, req/s", THROUGHPUT,
               "as published / fixed: the blog's Kotlin services on H2; contract app: our Java/JPA app on PostgreSQL"),
        _table(view, "kt2020-start-memory", "KT-2020: start, artifact and memory", START_AND_MEMORY,
               "cgroup memory: the cgroup's memory.current (page cache included); as docker stats shows it: "
               f"less the inactive file pages, read at the end of the pause or of the load. Launch times: "
               f"{published.KT2020_LAUNCH_NOTE}"),
    ]
    return [t for t in out if t]


def _median(cell: Cell | None) -> float | None:
    return cell.summary.median if cell is not None else None


def spring_over_quarkus(view: RunView, point: str, column: str) -> float | None:
    fig = next(f for f in THROUGHPUT if f.point == point)
    spring, quarkus = _median(_cell(view, fig, SPRING, column)), _median(_cell(view, fig, QUARKUS, column))
    return spring / quarkus if spring and quarkus else None


def lead_kept(blog: float, measured: float) -> float:
    """The share of the blog's Spring lead (ratio - 1) a measured ratio keeps; <= 0: none left."""
    return (measured - 1) / (blog - 1)


def remarks(view: RunView) -> list[str]:
    lines = []
    for point in ("GET cold", "POST cold", "GET warm", "POST warm"):
        ratios = {col: spring_over_quarkus(view, point, col) for col in COLUMNS}
        if not any(ratios.values()):
            continue
        blog = BLOG_RATIOS.get(point)
        parts = ([f"blog {fmt_ratio(blog)}"] if blog else []) + [f"{col} {fmt_ratio(r)}" for col, r in ratios.items()]
        line = f"Spring Boot / Quarkus, {point}: " + ", ".join(parts)
        fixed = ratios["fixed"]
        if blog and fixed is not None:
            kept = lead_kept(blog, fixed)
            if kept <= 0:
                line += "; fixed keeps none of the blog's Spring lead (Quarkus is not behind)"
            elif kept < 1:
                line += f"; fixed keeps {kept * 100:.0f} % of the blog's Spring lead"
            else:
                line += f"; fixed keeps all of the blog's Spring lead ({kept * 100:.0f} % of it)"
        lines.append(line + ".")
    return lines
