"""ledger: the balance of its entries. Started as
    service.py --server.port=8080 --datasource.url=jdbc:postgresql://HOST:PORT/NAME
with the user and password in LEDGER_DB_USER and LEDGER_DB_SECRET."""

import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import psycopg


def options(argv):
    return dict(arg[2:].split("=", 1) for arg in argv if arg.startswith("--") and "=" in arg)


class Ledger:
    def __init__(self, jdbc_url):
        url = urlsplit(jdbc_url.removeprefix("jdbc:"))
        self.params = dict(host=url.hostname, port=url.port, dbname=url.path.lstrip("/"),
                           user=os.environ["LEDGER_DB_USER"], password=os.environ["LEDGER_DB_SECRET"])
        self.local = threading.local()

    def query(self, sql):
        if not hasattr(self.local, "conn"):
            self.local.conn = psycopg.connect(**self.params, autocommit=True)
        return self.local.conn.execute(sql).fetchone()


def handler_for(ledger):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        wbufsize = 64 * 1024  # one write per response (flushed after each request)

        def do_GET(self):
            if self.path == "/ready":
                status, text = 200, "ready"
            elif self.path == "/balance":
                status, text = 200, f"balance={ledger.query('SELECT sum(amount) FROM entries')[0]}"
            else:
                status, text = 404, "no such page"
            body = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    return Handler


if __name__ == "__main__":
    opts = options(sys.argv[1:])
    ledger = Ledger(opts["datasource.url"])
    print(f"ledger connected to database {ledger.query('SELECT current_database()')[0]}", flush=True)
    server = ThreadingHTTPServer(("127.0.0.1", int(opts["server.port"])), handler_for(ledger))
    server.daemon_threads = True
    server.serve_forever()
