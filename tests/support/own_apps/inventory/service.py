"""inventory: lists the items of its database as JSON. Settings from the environment: PORT and
DATABASE_URL (a libpq URL)."""

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psycopg

local = threading.local()


def db():
    if not hasattr(local, "conn"):
        local.conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
    return local.conn


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms delayed-ACK wait

    def do_GET(self):
        if self.path == "/health":
            self.send(200, {"status": "up"})
        elif self.path == "/items":
            rows = db().execute("SELECT name, qty FROM items ORDER BY id").fetchall()
            self.send(200, [{"name": n, "qty": q} for n, q in rows])
        else:
            self.send(404, {"error": "not found"})

    def send(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    name = db().execute("SELECT current_database()").fetchone()[0]
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler)
    server.daemon_threads = True
    print(f"inventory connected to database {name}", flush=True)
    server.serve_forever()
