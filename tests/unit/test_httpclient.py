"""The lab's one HTTP request: what it sends (method, path with its query, body, content type,
accept) and what it returns; no answer is an exception from `request` and None from `answer`."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from perflab import httpclient


class Echo(BaseHTTPRequestHandler):
    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        sent = self.rfile.read(length).decode()
        body = f"{self.command} {self.path} {self.headers.get('Content-Type')} {self.headers.get('Accept')} {sent}"
        self.send_response(418 if self.path.startswith("/teapot") else 200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("X-Echo", "yes")
        self.end_headers()
        self.wfile.write(body.encode())

    do_GET = do_POST = _answer

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def base_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_get_keeps_its_query_and_returns_status_headers_and_body(base_url):
    resp = httpclient.request(base_url + "/fruits?name=a%20b")
    assert resp.status == 200 and resp.media_type == "text/plain" and resp.headers["x-echo"] == "yes"
    assert resp.text == "GET /fruits?name=a%20b None */* "


def test_a_post_sends_its_body_content_type_and_accept(base_url):
    resp = httpclient.request(base_url + "/teapot", "POST", b'{"a": 1}', "application/json", accept="text/plain")
    assert resp.status == 418
    assert resp.text == 'POST /teapot application/json text/plain {"a": 1}'


def test_no_answer_raises_from_request_and_is_none_from_answer():
    url = f"http://127.0.0.1:{_closed_port()}/hello"
    with pytest.raises(httpclient.NO_ANSWER):
        httpclient.request(url, timeout=2)
    assert httpclient.answer(url, 2) is None


def test_an_answer_is_the_whole_response(base_url):
    resp = httpclient.answer(base_url + "/", 2)
    assert resp is not None and resp.status == 200 and resp.text.startswith("GET / ")
