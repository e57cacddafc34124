"""Load drivers: wrk for closed loop (the studies' tool), oha for open loop at a fixed rate.

Both return ``LoadResult`` (latencies in ms, errors, driver CPU use and a driver-bound flag).
Typical use::

    from perflab.drivers import run_wrk, run_oha
    closed = run_wrk(url, connections=40, threads=2, duration_s=30, warmup_s=10, cpus=[1])
    opened = run_oha(url, rate=2000, duration_s=30, connections=100, warmup_s=10, cpus=[1])
"""

from .base import (ErrorCounts, LatencyStats, LoadResult, PERCENTILES, assess_driver_bound,
                   run_driver)
from .install import DriverUnavailable, cache_dir
from .oha import OHA_VERSION, ensure_oha, parse_oha_json, run_oha
from .wrk import ensure_wrk, parse_wrk_output, run_wrk

__all__ = [
    "DriverUnavailable", "ErrorCounts", "LatencyStats", "LoadResult", "OHA_VERSION",
    "PERCENTILES", "assess_driver_bound", "cache_dir", "ensure_oha", "ensure_wrk",
    "parse_oha_json", "parse_wrk_output", "run_driver", "run_oha", "run_wrk",
]
