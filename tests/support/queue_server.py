"""A stand-in server whose latency is set by a single-server queue, so its capacity is known.

Every request joins one FIFO queue served one at a time; serving takes `--service-ms` (fixed, or
exponentially distributed around it with `--random`, seeded). Serving is simulated on a clock
(the answer is sent when its turn ends), so the machine's load does not move the knee: with fixed
service times the server keeps up with at most 1000 / service-ms requests a second, and above
that the queue, and the latency, grow without bound. `--max-queue N` turns requests that would
wait behind N others away with 503 (load shedding: errors instead of latency above the knee).

GET /curve answers after a latency set by the arrival rate instead: 10 x `--service-ms` / (1 - r /
knee), r the requests that arrived in the last second and knee = 1000 / service-ms (capped at 5 s),
so latency rises smoothly with the rate and an objective L ms is kept up to knee x (1 - 10 service / L).

Routes: GET /work (queued), GET /curve, anything else 200 at once. Prints "PORT <n>" once listening.
In tests use ``QueueServer`` (a context manager that always stops the process).
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

if __package__:
    from tests.support.standin_server import StandinServer
else:  # run as a script: its own folder is on the path
    from standin_server import StandinServer


class Queue:
    def __init__(self, service_s: float, max_queue: int, randomised: bool, seed: int = 1) -> None:
        self.service_s, self.max_queue, self.randomised = service_s, max_queue, randomised
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.free_at = 0.0       # when the server finishes the work already queued
        self.waiting: list[float] = []  # end times of the requests queued or in service
        self.arrivals: list[float] = []  # /curve: arrival times within the last second

    def admit(self) -> float | None:
        """When this request's answer is due, or None when it is turned away."""
        with self.lock:
            now = time.monotonic()
            self.waiting = [t for t in self.waiting if t > now]
            if self.max_queue and len(self.waiting) > self.max_queue:
                return None
            service = self.rng.expovariate(1 / self.service_s) if self.randomised else self.service_s
            self.free_at = max(now, self.free_at) + service
            self.waiting.append(self.free_at)
            return self.free_at

    def curve_delay(self) -> float:
        """The smooth latency-vs-rate curve of /curve, in seconds."""
        with self.lock:
            now = time.monotonic()
            self.arrivals = [t for t in self.arrivals if t > now - 1.0] + [now]
            busy = len(self.arrivals) * self.service_s
        return 5.0 if busy >= 1 else min(5.0, 10 * self.service_s / (1 - busy))


def handler_for(queue: Queue):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the lab's drivers use

        def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
            status, body = 200, b"ok"
            if self.path == "/work":
                due = queue.admit()
                if due is None:
                    status, body = 503, b"queue full"
                else:
                    time.sleep(max(0.0, due - time.monotonic()))
            elif self.path == "/curve":
                time.sleep(queue.curve_delay())
            try:
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:  # the driver closed the connection at the end of its run
                self.close_connection = True

        def log_message(self, *args) -> None:
            pass

    return Handler


class QueueServer(StandinServer):
    """The queue server in its own process; always stopped."""

    def __init__(self, service_ms: float, *, max_queue: int = 0, randomised: bool = False) -> None:
        super().__init__()
        self.args = [f"--service-ms={service_ms}", f"--max-queue={max_queue}"] + (["--random"] if randomised else [])

    def command(self) -> list[str]:
        return [sys.executable, str(Path(__file__).resolve()), *self.args]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--service-ms", type=float, required=True)
    parser.add_argument("--max-queue", type=int, default=0)
    parser.add_argument("--random", action="store_true")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(Queue(args.service_ms / 1000, args.max_queue,
                                                                     args.random)))
    server.daemon_threads = True
    server.handle_error = lambda request, address: None  # a client gone mid-request is no news
    server.request_queue_size = 1024
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
