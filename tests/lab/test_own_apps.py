"""Your own apps with their own database: two small services that no one here wrote, each in a
folder of its own with nothing but its code, its SQL and its descriptor, each reading its port and
database under its own names, measured side by side in one short run (one given by the plan's
app_dirs, one by --app-dir)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perflab import postgres, store, target_run
from perflab.errors import LabError
from perflab.paths import REPO_ROOT
from tests.lab.test_runner_robustness import _standin_pids as processes_in  # those working in a folder
from tests.conftest import needs_root

SERVICES = Path(__file__).parent.parent / "support" / "own_apps"

DESCRIPTORS = {
    "inventory": f"""\
        name = "inventory"
        framework = "http.server"
        sources = ["service.py"]
        ready_path = "/health"
        first_response_path = "/items"
        load_path = "/items"

        [database]
        schema = "schema.sql"
        seed = ["seed.sql"]

        [smoke]
        path = "/items"
        status = 200
        contains = "anvil"

        [build]
        command = ["true"]
        artifact = "service.py"

        [modes.py]
        command = ["{sys.executable}", "service.py"]
        env = {{ PORT = "{{http_port}}", DATABASE_URL = "{{db_url}}" }}
        """,
    "ledger": f"""\
        name = "ledger"
        framework = "http.server"
        sources = ["service.py"]
        ready_path = "/ready"
        first_response_path = "/balance"
        load_path = "/balance"

        [database]
        schema = ["schema.sql"]
        seed = "seed.sql"

        [[smoke]]
        path = "/balance"
        contains = "balance=42.00"

        [[smoke]]
        path = "/nothing-here"
        status = 404

        [build]
        command = ["true"]
        artifact = "service.py"

        [modes.py]
        command = ["{sys.executable}", "service.py", "--server.port={{http_port}}", "--datasource.url={{db_jdbc_url}}"]
        env = {{ LEDGER_DB_USER = "{{db_user}}", LEDGER_DB_SECRET = "{{db_password}}" }}
        """,
}

PLAN = """
name = "own-apps"
apps = []
app_dirs = ["services/inventory"]
scenarios = ["startup", "sweep"]
repeats = 1
reductions = ["test durations"]
[limits]
memory_mb = 256
[startup]
runs = 2
rest_s = 0
[sweep]
warmup_s = 1
duration_s = 2
series = [{ name = "plan", path = "/not-theirs", connections = [1, 4] }]
"""


def _user_folder(root: Path, name: str) -> Path:
    folder = root / name
    shutil.copytree(SERVICES / name, folder)
    (folder / "perflab.toml").write_text(textwrap.dedent(DESCRIPTORS[name]))
    return folder


@needs_root("needs root for cgroups and the DB user")
def test_two_services_with_their_own_databases_are_measured_side_by_side(tmp_path, workdir, database):
    _, conn = database
    pytest.importorskip("psycopg")
    _user_folder(tmp_path / "services", "inventory")
    ledger = _user_folder(tmp_path / "elsewhere", "ledger")
    plan = tmp_path / "own.toml"
    plan.write_text(PLAN)
    env = dict(os.environ)

    def perflab(*args):
        return subprocess.run([sys.executable, "-m", "perflab", *args], cwd=REPO_ROOT, env=env,
                              capture_output=True, text=True, timeout=300)

    assert perflab("db", "start", "--url", conn.url).returncode == 0
    out = perflab("run", str(plan), "--app-dir", str(ledger))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]

    s = store.Store(workdir / "results.sqlite")
    run = s.run("last")
    figures = s.figures(run["id"])
    assert {f.app for f in figures} == {"inventory", "ledger"}
    for app, path in (("inventory", "/items"), ("ledger", "/balance")):
        ttfr = [f for f in figures if f.app == app and f.metric == "ttfr_ms"]
        assert len(ttfr) == 2 and all(f.value > 0 for f in ttfr)
        rps = [f for f in figures if f.app == app and f.scenario == "sweep" and f.metric == "rps"]
        assert rps and all(f.value > 0 for f in rps)
        assert {f.params["path"] for f in rps} == {path}, "the load went to the app's own load_path"

    # each saw its own database: it said so at start, and its smoke request found its own seed
    logs = s.run_dir(run["id"]) / "logs"
    said = {app: " ".join(p.read_text() for p in logs.glob(f"{app}-py-*.log")) for app in ("inventory", "ledger")}
    assert "connected to database perflab_inventory" in said["inventory"]
    assert "connected to database perflab_ledger" in said["ledger"]
    tables = {name: postgres.run_sql(conn, "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = "
                                           "'public'", database=name).strip()
              for name in ("perflab_inventory", "perflab_ledger")}
    assert tables == {"perflab_inventory": "items", "perflab_ledger": "entries"}
    assert not processes_in(tmp_path), "every instance of both services was stopped"


def test_a_missing_sql_file_is_an_error_naming_the_key_and_the_file(tmp_path, workdir):
    folder = _user_folder(tmp_path, "inventory")
    (folder / "seed.sql").unlink()
    out = subprocess.run([sys.executable, "-m", "perflab", "run", "--app-dir", str(folder)], cwd=REPO_ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "database.seed" in out.stderr and "seed.sql" in out.stderr and "perflab.toml" in out.stderr


def test_an_apps_database_starts_from_its_seed_each_time_and_a_bad_file_is_named(tmp_path, database):
    _, conn = database
    schema, seed = tmp_path / "schema.sql", tmp_path / "seed.sql"
    schema.write_text("CREATE TABLE t (n int);\n")
    seed.write_text("INSERT INTO t VALUES (1), (2);\n")
    files = [("database.schema", schema), ("database.seed", seed)]
    own = postgres.create_app_database(conn, "Fresh-App", files)
    assert own.database == "perflab_fresh_app" and own.user == conn.user
    postgres.run_sql(own, "INSERT INTO t VALUES (3)")
    again = postgres.create_app_database(conn, "Fresh-App", files)  # dropped and made again: the seed's rows only
    assert postgres.run_sql(again, "SELECT count(*) FROM t").strip() == "2"
    seed.write_text("INSERT INTO missing_table VALUES (1);\n")
    with pytest.raises(LabError) as err:
        postgres.create_app_database(conn, "Fresh-App", files)
    assert "database.seed" in err.value.message and str(seed) in err.value.message
    assert "missing_table" in err.value.details


def test_an_app_on_h2_leaves_the_labs_postgresql_as_it_is(workdir, database):
    from perflab import apps
    from perflab.paths import apps_dir
    from tests.lab.scenario_lab import make_lab

    _, conn = database
    lab = make_lab('name = "h2-db"\napps = []\n', conn)
    found = apps.discover(apps_dir())

    def first_fruit() -> str:
        return postgres.run_sql(conn, "SELECT name FROM fruits WHERE id = 1").strip()

    postgres.run_sql(conn, "UPDATE fruits SET name = 'changed' WHERE id = 1")
    try:
        target_run.prepare_database(lab, found["kt2020-quarkus"])  # H2: the contract is not reloaded
        assert first_fruit() == "changed" and lab.app_dbs == {}
        target_run.prepare_database(lab, found["quarkus"])  # PostgreSQL: the contract's seed again
        assert first_fruit() == "Cherry"
    finally:
        postgres.load_contract(conn)
