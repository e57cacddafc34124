"""KT-2020 as it was built: the kt2020 plan and its pool settings, the `database` descriptor key,
what the lab tells an app about its database, the API check against stand-in servers, and the
report's tables and reading from a synthetic run."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from urllib.parse import unquote

import pytest

from perflab import apps, kt2020_api, plan, results, runner
from perflab.analysis import stats
from perflab.errors import LabError
from perflab.lab import Lab
from perflab.paths import apps_dir
from perflab.present import kt2020 as report
from perflab.report import stated_claims
from tests.conftest import write_standin_app


def test_the_kt2020_plan_runs_both_variants_of_the_blogs_apps_and_our_contract_apps():
    p = plan.load("kt2020")
    labels = [t.label for t in runner.select_targets(p)]
    assert labels == ["kt2020-spring/as-published", "kt2020-spring/fixed", "kt2020-quarkus/as-published",
                      "kt2020-quarkus/fixed", "spring-boot/jvm", "quarkus/jvm"]
    assert (p["limits"]["pool_min"], p["limits"]["pool_max"]) == (10, 100)
    assert p["startup"]["runs"] == 11
    assert p.settings("kt2020load").memory_load_s == 60
    # the blog's 15-minute runs in its long form; 5 minutes in the default, which fits 4 hours
    assert plan.load("kt2020-full").settings("kt2020load").long_s == 900 and p.settings("kt2020load").long_s == 300
    said = " ".join(p["reductions"])
    for deviation in ("Maven", "bind parameters", "Spring Boot 4.1.1", "1 CPU", "docker stats"):
        assert deviation in said


def test_pool_sizes_are_checked():
    with pytest.raises(LabError, match="pool_min"):
        plan.validate({"name": "x", "limits": {"pool_min": 30, "pool_max": 20}})
    assert plan.validate({"name": "x"})["limits"]["pool_max"] == 20  # the contract apps' parity default


def test_the_db_server_key_defaults_to_postgresql_and_refuses_others(tmp_path):
    desc = write_standin_app(tmp_path) / "perflab.toml"
    assert apps.load_descriptor(desc).db_server == "postgresql"
    desc.write_text('db_server = "mysql"\n' + desc.read_text())
    with pytest.raises(LabError, match="db_server must be one of postgresql, h2"):
        apps.load_descriptor(desc)
    found = apps.discover(apps_dir())
    assert found["kt2020-quarkus"].db_server == found["kt2020-spring"].db_server == "h2"
    assert found["kt2020-quarkus"].api == "kt2020" and found["quarkus"].db_server == "postgresql"


def _lab(h2=None) -> Lab:
    p = plan.validate({"name": "x", "limits": {"pool_min": 10, "pool_max": 100}})
    db = SimpleNamespace(app_env=lambda: {"DB_URL": "jdbc:postgresql://127.0.0.1:5/perflab", "DB_USER": "perflab",
                                          "DB_PASSWORD": "pw"})
    return Lab(None, "run", p, None, None, db, None, None, None, h2=h2)


def test_apps_get_their_database_and_the_plans_pool():
    found = apps.discover(apps_dir())
    h2 = SimpleNamespace(conn=SimpleNamespace(app_env=lambda: {"DB_URL": "jdbc:h2:tcp://127.0.0.1:7/test",
                                                               "DB_USER": "sa", "DB_PASSWORD": "s"}))
    lab = _lab(h2)
    assert lab.db_env(found["kt2020-spring"])["DB_URL"].startswith("jdbc:h2:tcp://127.0.0.1:7/")
    env = lab.db_env(found["spring-boot"])
    assert env["DB_URL"].startswith("jdbc:postgresql:")
    assert (env["DB_POOL_MIN"], env["DB_POOL_MAX"]) == ("10", "100")
    with pytest.raises(LabError, match="H2 server"):
        _lab().db_env(found["kt2020-quarkus"])


def _serve(bad_body_status: int):
    """An in-memory KT-2020 API; bad bodies get `bad_body_status`."""
    rows = {kt2020_api.SEED}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, status, body=None):
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            key = unquote(self.path.removeprefix("/api/"))
            self._send(200, {"data": key}) if key in rows else self._send(404)

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                assert self.headers.get("Content-Type") == "application/json"
                data = json.loads(raw)["data"]
                assert 0 < len(data) <= 100
            except (ValueError, KeyError, AssertionError):
                return self._send(bad_body_status)
            rows.add(data)
            self._send(201, {"data": data})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.mark.parametrize("status, problems", [(400, 0), (500, 4)])
def test_the_api_check_passes_a_correct_service_and_names_every_5xx(status, problems):
    server = _serve(status)
    try:
        found = kt2020_api.verify(f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
    assert len(found) == problems
    assert all("answered 500, expected a 4xx" in p for p in found)


def _cell(app, mode, scenario, point, metric, values):
    return results.Cell(app, mode, scenario, point, metric, "req/s", values, stats.summarize(values))


def _view(cells):
    return results.RunView("r", "complete", {}, {}, "h", 0.0, 1.0, cells, [])


def test_the_tables_put_the_blogs_value_beside_each_variant():
    view = _view([_cell("kt2020-spring", "as-published", "kt2020load", "GET cold", "rps", [900, 1000, 1100]),
                  _cell("kt2020-spring", "fixed", "kt2020load", "GET cold", "rps", [1900, 2000, 2100]),
                  _cell("spring-boot", "jvm", "kt2020load", "GET cold", "rps", [2900, 3000, 3100]),
                  _cell("kt2020-quarkus", "all", "footprint", "", "artifact_mb", [30.0])])
    throughput, start = report.tables(view)
    label, row = throughput.rows[0]
    assert label == "GET 10 s, fresh app (cold): Spring Boot (blog: 3,240)"
    assert [c.summary.median for c in row] == [1000, 2000, 3000]
    assert throughput.columns == ["as published", "fixed", "contract app"]
    # one build serves both variants: its size shows in both columns
    label, row = start.rows[0]
    assert label == "artifact (uber-jar), MB: Quarkus (blog: 23.4)"
    assert [c.summary.median if c else None for c in row] == [30.0, 30.0, None]


def test_the_reading_says_how_much_of_the_blogs_lead_each_variant_keeps():
    cells = []
    for app, mode, spring_rps, quarkus_rps in (("kt2020", "as-published", 2000, 1000), ("kt2020", "fixed", 1500, 1000)):
        cells.append(_cell(f"{app}-spring", mode, "kt2020load", "POST cold", "rps", [spring_rps]))
        cells.append(_cell(f"{app}-quarkus", mode, "kt2020load", "POST cold", "rps", [quarkus_rps]))
    cells.append(_cell("spring-boot", "jvm", "kt2020load", "POST cold", "rps", [500]))
    cells.append(_cell("quarkus", "jvm", "kt2020load", "POST cold", "rps", [1000]))
    [line] = report.remarks(_view(cells))
    # in a report, the study's worded conclusions follow the scenario's own remarks
    _, said = stated_claims.scenario_words(SimpleNamespace(name="kt2020load", words=lambda v: ([], [line])),
                                           _view(cells))
    assert said[0] == line and said[1:] and all(x.startswith('KT-2020 "') for x in said[1:])
    # the blog: 1623 / 644 = 2.52x; fixed 1.5x keeps (1.5 - 1) / (2.52 - 1) = 33 % of that lead
    assert line.startswith("Spring Boot / Quarkus, POST cold: blog 2.52x, as published 2.00x, fixed 1.50x, "
                           "contract app 0.50x")
    assert "fixed keeps 33 % of the blog's Spring lead" in line
    behind = [_cell("kt2020-spring", "fixed", "kt2020load", "GET cold", "rps", [800]),
              _cell("kt2020-quarkus", "fixed", "kt2020load", "GET cold", "rps", [1000])]
    assert "keeps none of the blog's Spring lead" in report.remarks(_view(behind))[0]
    ahead = [_cell("kt2020-spring", "fixed", "kt2020load", "GET cold", "rps", [4000]),
             _cell("kt2020-quarkus", "fixed", "kt2020load", "GET cold", "rps", [1000])]
    assert "keeps all of the blog's Spring lead" in report.remarks(_view(ahead))[0]


def test_a_variants_claim_is_headed_by_its_own_baseline_in_both_reports():
    from perflab.present.published import claim
    from perflab.report import html, markdown, ratios

    view = _view([_cell("kt2020-spring", "fixed", "kt2020load", "GET cold", "rps", [2000]),
                  _cell("kt2020-quarkus", "fixed", "kt2020load", "GET cold", "rps", [1000])])
    res = ratios.evaluate(view, claim("kt2020-get-fixed"))
    assert html.claim_view(res)["baseline"] == "Spring fixed"
    md = markdown.claim_md(res)
    assert "÷ Spring fixed published" in md and "÷ Spring fixed measured" in md
    assert "÷ Spring published" not in md
    # a claim of our contract apps keeps the study's own baseline
    contract = ratios.evaluate(view, claim("kt2020-get"))
    assert html.claim_view(contract)["baseline"] == "Spring"
