"""What the lab measures on a running app, from outside it.

- `time_to_first_response` / `wait_ready`: exec -> first HTTP 200, by tight polling with fresh
  connections; the poll interval is recorded as the resolution.
- `watch_start_log`: the framework's own start time, parsed from its log.
- `ResourceSampler`: RSS and CPU time of the whole process tree, and the cgroup's memory and CPU,
  sampled at >= 10 Hz in a thread; summaries give the value at a moment, a true peak and means.
- `tree_cpu_seconds` / `tree_rss_bytes`: one-off readings for the DB server and the driver.

Standard library only; everything is read from /proc and the cgroup files (the canary runs a C program).

- `proc`: /proc readings of a process tree
- `liveness`: whether a watched process has exited, to fail fast
- `polling`: HTTP polling for time to first response and readiness
- `startlog`: the start time the framework prints in its log
- `sampling`: RSS/CPU samples of a tree and its cgroup in a thread, and their summaries
- `canary`: the host's own speed on given CPUs, from a small fixed C workload compiled once
"""

from .liveness import Process
from .polling import PollResult, poll_http, time_to_first_response, wait_ready
from .proc import (CLOCK_TICKS, PAGE_SIZE, ProcessTree, ProcStat, TreeReading, process_tree,
                   read_stat, tree_cpu_seconds, tree_rss_bytes)
from .sampling import SAMPLE_FIELDS, ResourceSampler, Sample, SampleSeries
from .startlog import StartLogMatch, find_start, watch_start_log

__all__ = [
    "CLOCK_TICKS", "PAGE_SIZE", "SAMPLE_FIELDS", "PollResult", "ProcStat", "Process", "ProcessTree",
    "ResourceSampler", "Sample", "SampleSeries", "StartLogMatch", "TreeReading", "poll_http",
    "process_tree", "read_stat", "time_to_first_response", "tree_cpu_seconds", "tree_rss_bytes",
    "wait_ready", "watch_start_log", "find_start",
]
