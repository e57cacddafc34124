"""A stand-in app that cannot take a burst while cold (never a framework result); its arguments are
ignored. Until it has served $COLD_REQUESTS requests, more than $COLD_CONCURRENCY at once make it
exit with code 3, as a cold JVM with a small heap runs out of it when every request thread compiles
the first query at once. It tests the lab's ramp before a load, nothing of any framework.
"""

import http.server
import os
import sys
import threading
import time

COLD_REQUESTS = int(os.environ.get("COLD_REQUESTS", "50"))
COLD_CONCURRENCY = int(os.environ.get("COLD_CONCURRENCY", "2"))
lock = threading.Lock()
served = in_flight = 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        global served, in_flight
        with lock:
            in_flight += 1
            if served < COLD_REQUESTS and in_flight > COLD_CONCURRENCY:
                print(f"burst of {in_flight} requests while cold ({served} served): giving up", flush=True)
                os._exit(3)
        try:
            time.sleep(0.005)  # long enough for concurrent requests to overlap
            body = b'{"status":"UP"}' if self.path.startswith("/health") else b"Hello from a cold stand-in (test)"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            with lock:
                served += 1
        finally:  # a client gone mid-answer is no longer in flight either
            with lock:
                in_flight -= 1

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["HTTP_PORT"])), Handler)
print("cold stand-in started in 1ms", flush=True)
sys.stdout.flush()
server.serve_forever()
