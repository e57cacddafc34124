"""Your own apps (--app-dir, app_dirs): descriptor keys for an own database, smoke requests and the
load path, the connection placeholders, and how such apps join a plan."""

from __future__ import annotations

import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from perflab import api_checks, apps, h2, plan, postgres, runner, target_run
from perflab.apps.launching import connection_values
from perflab.errors import LabError

DESCRIPTOR = """\
name = "orders"
framework = "theirs"
sources = ["app.py"]
ready_path = "/ready"
first_response_path = "/orders"
{extra}
[build]
command = ["true"]
artifact = "app.py"

[modes.main]
command = {command}
env = {env}
"""


def write_app(folder: Path, extra: str = "", command: str = '["run", "--port={http_port}"]', env: str = "{}",
              files: tuple[str, ...] = ("schema.sql", "seed.sql")) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "app.py").write_text("")
    for name in files:
        (folder / name).write_text("SELECT 1;\n")
    desc = folder / "perflab.toml"
    desc.write_text(DESCRIPTOR.format(extra=textwrap.dedent(extra), command=command, env=env))
    return desc


def error_of(desc: Path) -> LabError:
    with pytest.raises(LabError) as err:
        apps.load_descriptor(desc)
    return err.value


def test_own_database_files_are_found_beside_the_descriptor_and_make_an_api_of_its_own(tmp_path):
    desc = write_app(tmp_path / "orders", '[database]\nschema = "schema.sql"\nseed = ["seed.sql"]\n')
    app = apps.load_descriptor(desc)
    assert app.database.files == [tmp_path / "orders" / "schema.sql", tmp_path / "orders" / "seed.sql"]
    assert app.api == apps.OWN_API


def test_a_missing_sql_file_names_the_key_and_the_file(tmp_path):
    desc = write_app(tmp_path / "orders", '[database]\nschema = "schema.sql"\nseed = ["data/seed.sql"]\n')
    err = error_of(desc)
    assert "database.seed" in err.message and "data/seed.sql" in err.message and str(desc) in err.message


def test_an_unknown_database_key_is_named(tmp_path):
    err = error_of(write_app(tmp_path / "o", '[database]\nschemas = "schema.sql"\n'))
    assert "database.schemas (did you mean schema?)" in err.message and "in [database]: schema, seed" in err.fix


def test_unknown_placeholders_are_named_with_the_known_ones(tmp_path):
    err = error_of(write_app(tmp_path / "a", command='["run", "--url={db_jdbcurl}"]'))
    assert "{db_jdbcurl}" in err.message and "[modes.main] command" in err.message and "{db_jdbc_url}" in err.fix
    err = error_of(write_app(tmp_path / "b", env='{ DB = "{database_url}" }'))
    assert "{database_url}" in err.message and "[modes.main] env" in err.message
    # the shell's own ${VAR} is left to the shell
    apps.load_descriptor(write_app(tmp_path / "c", command='["sh", "-c", "run --home=${HOME}"]'))


def test_smoke_is_one_table_or_several(tmp_path):
    one = apps.load_descriptor(write_app(tmp_path / "a", '[smoke]\npath = "/orders"\n'))
    assert one.smoke == [apps.Smoke("/orders", 200, "")]
    several = apps.load_descriptor(write_app(
        tmp_path / "b", '[[smoke]]\npath = "/orders"\ncontains = "id"\n[[smoke]]\npath = "/nope"\nstatus = 404\n'))
    assert several.smoke == [apps.Smoke("/orders", 200, "id"), apps.Smoke("/nope", 404, "")]
    assert several.api == apps.OWN_API


@pytest.mark.parametrize("extra, words", [
    ('[smoke]\nstatus = 200\n', ["smoke[0] needs 'path'"]),
    ('[smoke]\npath = "orders"\n', ["path", "start"]),
    ('[[smoke]]\npath = "/a"\n[[smoke]]\npath = "/b"\nstatus = 999\n', ["smoke[1]", "status"]),
    ('api = "contract"\n[smoke]\npath = "/a"\n', ["contract", "smoke"]),
    ('load_path = "items"\n', ["load_path"]),
])
def test_bad_smoke_and_load_path_are_named(tmp_path, extra, words):
    err = error_of(write_app(tmp_path / "x", extra))
    assert all(w in err.message for w in words), err.message


def test_placeholders_reach_the_command_and_the_env_under_the_apps_own_names(tmp_path):
    desc = write_app(tmp_path / "o", command='["run", "--spring.datasource.url={db_jdbc_url}", "--port={http_port}"]',
                     env='{ QUARKUS_DATASOURCE_PASSWORD = "{db_password}", DATABASE_URL = "{db_url}" }')
    app = apps.load_descriptor(desc)
    conn = postgres.Connection("127.0.0.1", 5544, "perflab_orders", "lab", "p@ss:w/rd")
    argv, env = apps.launch_argv(app, app.mode("main"), connection=connection_values(conn.app_env(), 8123))
    assert argv == ["run", "--spring.datasource.url=jdbc:postgresql://127.0.0.1:5544/perflab_orders", "--port=8123"]
    assert env["QUARKUS_DATASOURCE_PASSWORD"] == "p@ss:w/rd"
    url = urlsplit(env["DATABASE_URL"])  # a libpq URL that keeps a password with URL characters intact
    assert (url.scheme, url.hostname, url.port, url.path) == ("postgresql", "127.0.0.1", 5544, "/perflab_orders")
    assert (unquote(url.username), unquote(url.password)) == ("lab", "p@ss:w/rd")


def test_an_app_on_h2_gets_h2s_host_port_name_and_no_postgresql_url(tmp_path):
    desc = write_app(tmp_path / "o", 'db_server = "h2"\n',
                     command='["run", "--url={db_jdbc_url}", "--db={db_host}:{db_port}/{db_name}"]',
                     env='{ DB_LOGIN = "{db_user}", DB_SECRET = "{db_password}" }')
    app = apps.load_descriptor(desc)
    conn = h2.H2Connection("127.0.0.1", 9123, "s3:cr/t")
    argv, env = apps.launch_argv(app, app.mode("main"), connection=connection_values(conn.app_env(), 8123))
    assert argv == ["run", "--url=jdbc:h2:tcp://127.0.0.1:9123/test", "--db=127.0.0.1:9123/test"]
    assert (env["DB_LOGIN"], env["DB_SECRET"]) == ("sa", "s3:cr/t")
    values = connection_values({"DB_URL": "jdbc:h2:tcp://localhost:1521/test;DB_CLOSE_DELAY=-1"}, 1)
    assert (values["db_host"], values["db_port"], values["db_name"], values["db_url"]) == ("localhost", "1521", "test", "")


def test_an_app_on_h2_may_not_bring_postgresql_sql_or_name_the_postgresql_url(tmp_path):
    err = error_of(write_app(tmp_path / "a", 'db_server = "h2"\n[database]\nschema = "schema.sql"\n'))
    assert "[database]" in err.message and 'db_server = "h2"' in err.message and "db_server" in err.fix
    err = error_of(write_app(tmp_path / "b", 'db_server = "h2"\n', env='{ DATABASE_URL = "{db_url}" }'))
    assert "{db_url}" in err.message and "[modes.main]" in err.message and "{db_jdbc_url}" in err.fix


def test_heap_opts_give_a_native_executable_the_plans_heap_sizes_only(tmp_path):
    app = apps.load_descriptor(write_app(tmp_path / "n", command='["{artifact}", "{heap_opts}"]'))
    opts = ["-Xmx64m", "-XX:+PrintCommandLineFlags", "-Xmn16m", "-Xlog:gc"]
    argv, _ = apps.launch_argv(app, app.mode("main"), jvm_opts=opts)
    assert argv == [str(app.artifact_path), "-Xmx64m", "-Xmn16m"]
    assert apps.launch_argv(app, app.mode("main"))[0] == [str(app.artifact_path)]


def test_quarkus_native_runs_with_the_plans_heap_as_lab2020_sets_it():
    quarkus = apps.get("quarkus")
    limits = plan.load("lab2020")["limits"]
    native = quarkus.mode("native")
    argv, _ = apps.launch_argv(quarkus.for_mode("native"), native, jvm_opts=apps.mode_jvm_opts(native, limits))
    assert argv == [str(quarkus.for_mode("native").artifact_path), *limits["native_heap_opts"]]
    # the JVM mode keeps the plan's jvm_opts
    assert apps.mode_jvm_opts(quarkus.mode("jvm"), limits) == limits["jvm_opts"]


def test_native_heap_opts_replace_the_jvm_opts_heap_sizes_of_native_modes_only(tmp_path):
    app = apps.load_descriptor(write_app(tmp_path / "n", command='["{artifact}", "{heap_opts}"]'))
    limits = {"jvm_opts": ["-Xmx64m", "-Xlog:gc"], "native_heap_opts": ["-Xms8m", "-Xmx32m"]}
    argv, _ = apps.launch_argv(app, app.mode("main"), jvm_opts=apps.mode_jvm_opts(app.mode("main"), limits))
    assert argv == [str(app.artifact_path), "-Xms8m", "-Xmx32m"]
    assert apps.mode_jvm_opts(app.mode("main"), {**limits, "native_heap_opts": []}) == limits["jvm_opts"]
    jvm = apps.load_descriptor(write_app(tmp_path / "j", command='["{java}", "{jvm_opts}", "-jar", "{artifact}"]'))
    assert apps.mode_jvm_opts(jvm.mode("main"), limits) == limits["jvm_opts"]


def test_each_app_gets_a_database_name_of_its_own():
    assert postgres.app_database_name("My-App.v2") == "perflab_my_app_v2"
    assert postgres.app_database_name("a") != postgres.app_database_name("b")


def test_app_dirs_are_relative_to_the_plan_file_and_join_the_plans_apps(tmp_path):
    write_app(tmp_path / "theirs" / "orders")
    plan_file = tmp_path / "plans" / "mine.toml"
    plan_file.parent.mkdir()
    plan_file.write_text('name = "mine"\napps = ["all"]\napp_dirs = ["../theirs/orders"]\n')
    loaded = plan.load(str(plan_file))
    assert loaded["app_dirs"] == [str(tmp_path / "theirs" / "orders")]
    names = {t.app.name for t in runner.select_targets(loaded)}
    assert "orders" in names and {"quarkus", "spring-boot"} <= names  # ours and theirs, side by side


def test_an_app_dir_without_a_descriptor_or_with_a_taken_name_is_an_error(tmp_path):
    (tmp_path / "empty").mkdir()
    no_desc = plan.validate({"name": "p", "apps": [], "app_dirs": [str(tmp_path / "empty")]})
    with pytest.raises(LabError, match="app_dirs.*no perflab.toml"):
        runner.select_targets(no_desc)
    desc = write_app(tmp_path / "clash")
    desc.write_text(desc.read_text().replace('name = "orders"', 'name = "quarkus"'))
    clash = plan.validate({"name": "p", "app_dirs": [str(tmp_path / "clash")]})
    with pytest.raises(LabError, match="quarkus"):
        runner.select_targets(clash)


def test_an_apps_load_path_replaces_every_path_the_plan_loads(tmp_path):
    base = plan.validate({"name": "p", "memory": {"load_path": "/fruits"}, "latency": {"path": "/fruits"},
                          "sweep": {"series": [{"name": "hello", "path": "/hello", "connections": [1, 2]},
                                               {"name": "fruits", "path": "/fruits", "connections": [1, 4]}]},
                          "steady": {"points": [{"path": "/hello", "connections": 4},
                                                {"path": "/fruits", "connections": 4},
                                                {"path": "/fruits", "connections": 40}]}})
    app = apps.load_descriptor(write_app(tmp_path / "o", 'load_path = "/orders/open"\n'))
    mine = target_run.plan_for(base, app)
    assert mine.settings("memory").load_path == mine.settings("latency").path == "/orders/open"
    assert [(s.name, s.path, s.connections) for s in mine.settings("sweep").series] == [("orders", "/orders/open", [1, 2])]
    assert [(p.path, p.connections) for p in mine.settings("steady").points] == [("/orders/open", 4), ("/orders/open", 40)]
    assert mine.settings("startup").path == ""  # start-up keeps the app's own first_response_path
    assert base.settings("latency").path == "/fruits"  # the plan itself is unchanged for the other apps
    assert target_run.plan_for(base, apps.load_descriptor(write_app(tmp_path / "p"))) is base


class _Pages(BaseHTTPRequestHandler):
    def do_GET(self):
        status, body = {"/orders": (200, b'[{"id": 7}]'), "/boom": (500, b"oops")}.get(self.path, (404, b""))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def pages():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_smoke_requests_replace_the_contract_check(tmp_path, pages, monkeypatch):
    monkeypatch.setitem(api_checks.CHECKS, apps.CONTRACT_API, lambda url: pytest.fail("the contract check ran"))
    good = apps.load_descriptor(write_app(
        tmp_path / "a", '[[smoke]]\npath = "/orders"\ncontains = "id"\n[[smoke]]\npath = "/x"\nstatus = 404\n'))
    assert api_checks.verify(good, pages) == []
    assert api_checks.name(good) == "smoke check"
    bad = apps.load_descriptor(write_app(
        tmp_path / "b", '[[smoke]]\npath = "/boom"\n[[smoke]]\npath = "/orders"\ncontains = "customer"\n'))
    problems = api_checks.verify(bad, pages)
    assert len(problems) == 2
    assert "/boom answered 500, expected 200" in problems[0] and "'customer'" in problems[1]


def test_a_contract_app_keeps_the_contract_check(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setitem(api_checks.CHECKS, apps.CONTRACT_API, lambda url: seen.append(url) or [])
    app = apps.load_descriptor(write_app(tmp_path / "c"))
    assert app.api == apps.CONTRACT_API and api_checks.verify(app, "http://127.0.0.1:1") == []
    assert seen == ["http://127.0.0.1:1"]


def test_app_dir_on_the_command_line_joins_a_plan_or_runs_alone(tmp_path):
    from perflab.commands import _plan_with

    folder = tmp_path / "orders"
    write_app(folder)
    beside = _plan_with("quick", None, [str(folder)])
    assert beside["apps"] == ["all"] and beside["app_dirs"] == [str(folder)]
    alone = _plan_with("quick", [], [str(folder)])  # `run --app-dir DIR` without a plan
    assert alone["apps"] == [] and [t.app.name for t in runner.select_targets(alone)] == ["orders"]


def test_a_build_tool_of_the_project_itself_is_found_in_its_folder(tmp_path):
    desc = write_app(tmp_path / "o")
    desc.write_text(desc.read_text().replace('command = ["true"]', 'command = ["./mvnw", "package"]'))
    app = apps.load_descriptor(desc)
    assert "./mvnw" in apps.unavailable(app, "main")
    (app.dir / "mvnw").write_text("#!/bin/sh\n")
    (app.dir / "mvnw").chmod(0o755)
    assert apps.unavailable(app, "main") == ""
