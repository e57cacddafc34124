"""A loop whose app is a small HTTP server inside the test process, for the devloop's own
measuring logic (what a script makes of a change showing, a restart, a broker restart): a
subclass answers each request from the working copy's files; a sleeping child process stands for
the loop's process (its pid, whether it is alive)."""

from __future__ import annotations

import http.server
import subprocess
import threading
import time

from perflab.devloop import loops


class HttpStandIn(loops.Loop):
    kind = loops.DEV_MODE

    def handle(self, method: str, path: str, body: str) -> tuple[int, str]:
        """(status, body) of one request."""
        raise NotImplementedError

    def start(self):
        standin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self, method: str) -> None:
                sent = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                status, body = standin.handle(method, self.path, sent)
                self.send_response(status)
                self.end_headers()
                self.wfile.write(body.encode())

            def do_GET(self):  # noqa: N802
                self._answer("GET")

            def do_POST(self):  # noqa: N802
                self._answer("POST")

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.proc = subprocess.Popen(["sleep", "600"])
        self.started_ns = time.monotonic_ns()

    def stop(self):
        if self.proc is not None:
            self.server.shutdown()
            self.proc.kill()
            self.proc.wait()
            self.proc = None
