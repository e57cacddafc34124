"""LAB-2020's published figures as its tables list them, and the passages of its text that print them."""

from __future__ import annotations

from statistics import median as _median

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


def lab20_runs_passage(heading: str, runs: dict[str, tuple[float, ...]]) -> tuple[str, ...]:
    """Labs 2.1 and 3.1: each app's three runs and median, in s with 3 decimals."""
    return (heading, *_lab20_rows(runs, _LAB20_NAMES, lambda _, r: " ".join(
        f"{v / 1000:.3f}" for v in (*r, _median(r)))))


def lab20_3_2_passage() -> tuple[str, ...]:
    go = LAB20_3_2_GO_RUNS
    def row(r):
        return ", ".join(f"{v / 1000:.3f}s" for v in r)
    printed = {"Q-native": 9585.0}  # the study's printed median (see the contradictions)
    return ("SCENARIO 3.2", f"Go (for reference) {row(go)}; MED: {_median(go) / 1000:.3f}s",
            *(f"{name} {row(r)}; MED: {printed.get(lbl, _median(r)) / 1000:.3f}s "
              f"{(printed.get(lbl, _median(r)) - _median(go)) / 1000:.3f}s"
              for lbl, name in _LAB20_NAMES.items() for r in [LAB20_3_2_RUNS[lbl]]))


LAB20_PEAK_PASSAGE = ("Memory usage for peak load (MEM_PEAK)", "Framework A 264 MB 3697 req/sec",
                      "Quarkus JVM 214 MB 6396 req/sec", "Quarkus Native 80 MB 3266 req/sec")
LAB20_1_2B_PASSAGE = ("SCENARIO 1.2B", "Framework A 12 1911 MB", "Quarkus on JVM 18 1996 MB",
                      "Quarkus on Native 98 1967 MB")
