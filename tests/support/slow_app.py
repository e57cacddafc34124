"""A stand-in app for testing the lab's own process handling (never a framework result).

Usage: slow_app.py DELAY_SECONDS [EXIT_CODE]. Waits DELAY seconds, allocates $STANDIN_ALLOC_MB
(if set), then serves any GET on $HTTP_PORT, spending $STANDIN_BUSY_US microseconds of CPU on each
(if set: a known cost per request); with EXIT_CODE it exits with that code instead.
It starts a child process too, so tests can check that a whole process tree is stopped.
"""

import http.server
import os
import subprocess
import sys
import time

delay = float(sys.argv[1])
print(f"stand-in app starting, pid {os.getpid()}", flush=True)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print(f"child pid {child.pid}", flush=True)
time.sleep(delay)
hog = bytearray(int(os.environ.get("STANDIN_ALLOC_MB", "0")) * 1024 * 1024)
for i in range(0, len(hog), 4096):  # touch every page so it is resident
    hog[i] = 1
if len(sys.argv) > 2:
    print("stand-in app failing on purpose", flush=True)
    sys.exit(int(sys.argv[2]))
busy_s = float(os.environ.get("STANDIN_BUSY_US", "0")) / 1e6


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as load drivers expect

    def do_GET(self):
        until = time.thread_time() + busy_s
        while time.thread_time() < until:  # CPU, not a sleep: it costs what a slower code path would
            pass
        body = b'{"status":"UP"}' if self.path.startswith("/health") else b"Hello from StandIn (test)"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["HTTP_PORT"])), Handler)
print(f"stand-in app started in {delay * 1000:.0f}ms", flush=True)
server.serve_forever()
