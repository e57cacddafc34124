"""The cost model's assumptions (LAB-2020's estate and node size) as a plan's [cost] table holds
them: defaults, and the validation of a plan's overrides. The model itself is perflab.report.cost.
"""

from __future__ import annotations

import copy
from typing import Any

from perflab.errors import LabError

CLASSES = ("high", "medium", "low")

# which measured RSS a pod needs: (scenario, metric, point label or "*" for any), and its name
RSS_SOURCES = {
    "peak": ("memory", "rss_peak_mb", "*", "peak RSS under load"),
    "after-first": ("startup", "rss_after_first_mb", "warm", "RSS after the first request"),
    "rest": ("startup", "rss_rest_mb", "warm", "RSS at rest"),
    "needed": ("memneeds", "memory_needed_mb", "*",
               "memory needed (smallest limit keeping 90 % of the best clean throughput)"),
}

DEFAULTS: dict[str, Any] = {
    "services": {"high": 120, "medium": 120, "low": 60},
    "memory_factor": {"high": 2.0, "medium": 1.0, "low": 0.5},
    "replicas": 1,
    "node_mb": 16384,
    "reserved_mb": 1024,  # per node, for the OS and the kubelet
    "pod_overhead_mb": 0.0,
    "rss": "peak",
    "baseline": "spring-boot/jvm",
}


def assumptions(overrides: dict | None) -> dict[str, Any]:
    """The defaults with the plan's [cost] table applied; unknown keys and bad values are errors."""
    merged = copy.deepcopy(DEFAULTS)
    for key, value in (overrides or {}).items():
        if key not in DEFAULTS:
            raise LabError(f"plan [cost]: unknown key {key!r}", fix=f"allowed keys: {', '.join(sorted(DEFAULTS))}")
        if isinstance(DEFAULTS[key], dict):
            if not isinstance(value, dict) or set(value) - set(CLASSES):
                raise LabError(f"plan [cost]: {key} must be a table with keys {', '.join(CLASSES)}, got {value!r}")
            for cls, v in value.items():
                if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
                    raise LabError(f"plan [cost]: {key}.{cls} must be a number >= 0, got {v!r}")
            merged[key].update(value)
        elif key == "rss":
            if value not in RSS_SOURCES:
                raise LabError(f"plan [cost]: rss must be one of {', '.join(RSS_SOURCES)}, got {value!r}")
            merged[key] = value
        elif key == "baseline":
            if not isinstance(value, str) or "/" not in value:
                raise LabError(f"plan [cost]: baseline must be an app/mode such as spring-boot/jvm, got {value!r}")
            merged[key] = value
        else:
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise LabError(f"plan [cost]: {key} must be a number >= 0, got {value!r}")
            merged[key] = value
    if merged["node_mb"] <= merged["reserved_mb"]:
        raise LabError("plan [cost]: node_mb must be larger than reserved_mb")
    return merged
