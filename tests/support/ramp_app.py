"""A stand-in app whose throughput follows a chosen shape over time, to test the lab's steady-state
logic (never a framework result).

Usage: ramp_app.py SHAPE RAMP_S RATE, serving on $HTTP_PORT (the stand-in server's HTTP handling,
tests/support/standin_server.py). Responses to anything outside /health leave on a schedule of
RATE * f(t) a second, t being the seconds since the app started, whatever the number of
connections waiting (a closed-loop load with a few connections always has requests waiting):
  ramp   f rises linearly from 0.3 to 1 over RAMP_S seconds, then stays at 1 (warm-up, then settled)
  climb  f rises the same way and never stops (an app still warming up when the lab gives up)
A schedule rather than a delay per request: on a loaded machine a late event loop catches up
(within CATCH_UP_S), so each second still serves about its scheduled number of responses.
/health/* answers at once.
"""

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import standin_server  # noqa: E402

CATCH_UP_S = 0.1  # a stall of the loop up to this long is made up for (so is an idle gap: kept short)

shape, ramp_s, rate = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
if shape not in ("ramp", "climb"):
    sys.exit(f"unknown shape {shape!r}: ramp or climb")
started = time.monotonic()
next_slot = started


def pace(at: float) -> float:
    f = 0.3 + 0.7 * (at - started) / ramp_s
    return min(f, 1.0) if shape == "ramp" else f


async def paced(store, method: str, path: str, headers: dict, body: bytes):
    global next_slot
    if path.startswith("/health"):
        return 200, b'{"status":"UP"}', "application/json"
    now = time.monotonic()
    slot = max(next_slot, now - CATCH_UP_S)
    next_slot = slot + 1 / (rate * pace(slot))
    await asyncio.sleep(max(0.0, slot - now))
    return 200, b"paced", "text/plain"


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print(f"ramp stand-in starting, pid {os.getpid()}", flush=True)
    standin_server.route = paced  # the stand-in's HTTP handling, answering on this schedule
    asyncio.run(standin_server.serve(int(os.environ["HTTP_PORT"])))
