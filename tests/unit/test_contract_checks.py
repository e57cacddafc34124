"""The contract checks and the cross-app comparison must catch deviations (so the conformance
suite fails when one app deviates)."""

from __future__ import annotations

import json

from perflab import contract
from perflab.contract import Case, Response


def _resp(status, body, ctype="application/json", **headers):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Response(status, {"content-type": ctype, **{k.lower(): v for k, v in headers.items()}}, raw)


def _case(case_id):
    return next(c for c in contract.CASES if c.id == case_id)


def test_exact_body_is_required():
    case = _case("fruits.get")
    assert contract.check(case, _resp(200, {"id": 1, "name": "Cherry"})) == []
    assert contract.check(case, _resp(200, {"id": 1, "name": "Cherry", "extra": None}))
    assert contract.check(case, _resp(200, {"id": 1, "name": "Cherry"}, "text/html"))


def test_wrong_status_and_spring_default_error_body_are_caught():
    case = _case("fruits.create.blank")
    assert contract.check(case, _resp(500, {"status": 500, "error": "boom"}))
    spring_default = {"timestamp": "2026-01-01", "status": 400, "error": "Bad Request", "path": "/fruits"}
    assert any("exactly" in p for p in contract.check(case, _resp(400, spring_default)))
    assert any("application/json" in p for p in contract.check(case, _resp(400, b"Bad", "text/plain")))
    assert contract.check(case, _resp(400, {"status": 400, "error": "name must not be blank"})) == []
    assert contract.check(case, _resp(400, {"status": 404, "error": "x"}))


def test_location_is_checked_on_create():
    case = _case("fruits.create")
    ids = {"mango": 4}
    ok = _resp(201, {"id": 4, "name": "Mango"}, Location="http://127.0.0.1:8080/fruits/4")
    assert contract.check(case, ok, ids) == []
    assert contract.check(case, _resp(201, {"id": 4, "name": "Mango"}), ids)
    assert contract.check(case, _resp(201, {"id": 4, "name": "Mango"}, Location="/fruits/5"), ids)
    assert contract.check(case, _resp(201, {"id": 9, "name": "Mango"}, Location="/fruits/9"), ids)


def test_created_ids_are_compared_by_role_not_value():
    """A failed insert may use up a sequence value, so two correct apps can hand out different ids."""
    case = _case("fruits.get.created")
    a = contract.normalise(case, _resp(200, {"id": 4, "name": "Mango"}), {"mango": 4})
    b = contract.normalise(case, _resp(200, {"id": 7, "name": "Mango"}), {"mango": 7})
    assert a == b and a["body"]["id"] == "<id:mango>"
    seed = contract.normalise(_case("fruits.get"), _resp(200, {"id": 1, "name": "Cherry"}), {"mango": 4})
    assert seed["body"]["id"] == 1


def test_normalisation_masks_only_what_may_differ():
    hello = _case("hello")
    a = contract.normalise(hello, _resp(200, b"Hello from Quarkus (jvm)", "text/plain;charset=UTF-8"))
    b = contract.normalise(hello, _resp(200, b"Hello from Spring Boot (jvm)", "text/plain"))
    assert a == b
    err = _case("fruits.create.duplicate")
    x = contract.normalise(err, _resp(409, {"status": 409, "error": "Fruit 'Mango' exists"}))
    y = contract.normalise(err, _resp(409, {"status": 409, "error": "duplicate name"}))
    assert x == y
    z = contract.normalise(err, _resp(400, {"status": 400, "error": "duplicate name"}))
    assert x != z


def test_one_deviating_app_is_named():
    answers = {
        "quarkus": {"fruits.list": [{"id": 2, "name": "Apple"}], "hello": "x"},
        "spring-boot": {"fruits.list": [{"id": 2, "name": "Apple"}], "hello": "x"},
        "go-reference": {"fruits.list": [{"id": 2, "name": "apple"}], "hello": "x"},
    }
    diffs = contract.differences(answers)
    assert len(diffs) == 1
    assert diffs[0].startswith("fruits.list: go-reference answered")


def test_a_missing_answer_is_a_difference_and_agreement_is_none():
    same = {"a": {"c1": 1, "c2": 2}, "b": {"c1": 1, "c2": 2}}
    assert contract.differences(same) == []
    missing = {"a": {"c1": 1, "c2": 2}, "b": {"c1": 1}}
    assert contract.differences(missing) and "c2" in contract.differences(missing)[0]


def test_cases_run_against_a_deviating_server_fail(tmp_path):
    """End to end over HTTP: a stand-in that answers /hello wrongly fails the check."""
    import http.server
    import threading

    class Wrong(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"Hi"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Wrong)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        out = contract.run_cases(f"http://127.0.0.1:{server.server_port}", [_case("hello"), _case("fruits.get")])
    finally:
        server.shutdown()
    assert [o.ok for o in out] == [False, False]
    assert "Hello from" in out[0].problems[0]
