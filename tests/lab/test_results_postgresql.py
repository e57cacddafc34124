"""The results store in a team's PostgreSQL (PERFLAB_RESULTS), against the lab's own PostgreSQL: a
run moved into it and out again keeps every row; history and the time estimates read it as they read
the file; two perflab processes writing at once lose nothing; importing twice changes nothing."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import textwrap
import uuid

import numpy as np
import pytest

from perflab import postgres, results_export, run_history
from perflab.errors import LabError
from perflab.store import Store
from tests.unit.test_history import PLAN
from tests.unit.test_results_export import ENV, INTERVAL, _export_text, _full_run, _import

pytestmark = pytest.mark.standin  # a database and small Python processes: it may run beside the apps group


@pytest.fixture
def team_url(database) -> str:
    """A fresh database on the lab's test server, as a team's results store."""
    _, conn = database
    return postgres.create_app_database(conn, f"results-{uuid.uuid4().hex[:8]}", []).url


def _document(store: Store, ids: list[str]) -> dict:
    """What an export holds of these runs, without where it came from (the export names its store)."""
    doc = results_export.document(store, ids)
    return {"runs": doc["runs"]}


def test_a_run_moved_into_postgresql_and_out_again_keeps_every_row(tmp_path, team_url):
    file = Store(tmp_path / "file" / "results.sqlite")
    rng = np.random.default_rng(21)
    ids = [_full_run(file, n, rng, env={**ENV, "hostname": "ci-runner-7"}) for n in range(2)]
    team = Store(tmp_path / "work" / "results.sqlite", url=team_url)
    assert [new for _, new in _import(team, _export_text(file, ids))] == [True, True]
    assert team.where.startswith("postgresql://") and ":" not in team.where.split("@")[0].split("//")[1]

    assert json.dumps(_document(team, ids), sort_keys=True) == json.dumps(_document(file, ids), sort_keys=True)

    # another store on the same database (another process, or machine: its files are its own)
    again = Store(tmp_path / "elsewhere" / "results.sqlite", url=team_url)
    assert [f.__dict__ for f in again.figures(ids[0])] == [f.__dict__ for f in file.figures(ids[0])]
    assert [r["id"] for r in again.runs()] == [r["id"] for r in file.runs()]
    assert again.run(ids[0][:-2])["id"] == ids[0] and again.figure_count(ids[1]) == file.figure_count(ids[1])
    assert again.rounds_record(ids[0]) == file.rounds_record(ids[0])
    assert again.targets(ids[0]) == file.targets(ids[0])

    # importing the same runs again changes nothing and says so
    assert [new for _, new in _import(again, _export_text(file, ids))] == [False, False]
    assert again.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 2
    for store in (file, team, again):
        store.close()


def test_history_and_the_estimates_read_postgresql_as_they_read_the_file(tmp_path, team_url, monkeypatch):
    # json_extract, IS ? and COALESCE in the store's SQL: the same answers from both
    monkeypatch.setattr(platform, "node", lambda: "lab-1")
    stores = [Store(tmp_path / "file" / "results.sqlite"), Store(tmp_path / "work" / "results.sqlite", url=team_url)]
    answers = []
    for store in stores:
        rng = np.random.default_rng(22)
        ids = [_full_run(store, n, rng, env={**ENV, "hostname": host}) for n, host in
               enumerate(("lab-1", "lab-1", "lab-2"))]
        for run_id in ids:
            store.db.execute("UPDATE runs SET status='complete', finished_at=started_at + 60 WHERE id=?", (run_id,))
            store.save_rounds(run_id, {"ratios": [{"ratio": "quarkus/jvm / go-ref/jvm", "numerator": "quarkus/jvm",
                                                    "denominator": "go-ref/jvm", "interval": INTERVAL}]})
        method = store.run(ids[0])["method_hash"]
        history = run_history.load_for(store, PLAN["name"], method, "lab-1")
        answers.append((len(history.runs), sorted(history.ratios), store.step_durations(PLAN["name"], method),
                        store.durations(PLAN["name"], method), run_history.load_for(store, PLAN["name"], method,
                                                                                     None).runs))
        store.close()
    assert json.dumps(answers[0], sort_keys=True) == json.dumps(answers[1], sort_keys=True)  # NaN steps alike
    # lab-1's two runs; its steps and durations, not lab-2's; no run without a host
    assert answers[0][0] == 2 and answers[0][2] and len(answers[0][3]) == 2 and answers[0][4] == []


WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from perflab.store import Store
    store = Store(Path(sys.argv[2]), url=sys.argv[1])
    run = store.begin_run({"name": "writers", "apps": ["a"]}, {"hostname": sys.argv[3]})
    print(run, flush=True)
    sys.stdin.readline()  # every writer starts writing at once
    for n in range(int(sys.argv[4])):
        store.add_figure(run, "a", "jvm", "steady", "rps", float(n), "req/s", repeat=n % 5)
        if n % 50 == 0:
            store.save_rounds(run, {"seed": n, "orders": [["a/jvm"]], "launches": []})
            store.add_step(run, f"step {n}", 1.0, 1.0)
    store.finish_run(run, "complete")
    store.close()
""")


def test_two_perflab_processes_writing_at_once_lose_nothing(tmp_path, team_url):
    figures = 400
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, team_url, str(tmp_path / f"w{i}" / "results.sqlite"),
                                 f"writer-{i}", str(figures)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True, env=env) for i in range(2)]
    ids = [w.stdout.readline().strip() for w in writers]
    for w in writers:
        w.stdin.write("go\n")
        w.stdin.flush()
    for w in writers:
        assert w.wait(timeout=120) == 0
    store = Store(tmp_path / "reader" / "results.sqlite", url=team_url)
    for run_id in ids:
        values = sorted(f.value for f in store.figures(run_id))
        assert values == [float(n) for n in range(figures)]
        assert store.run(run_id)["status"] == "complete"
        assert store.rounds_record(run_id)["seed"] == 350  # the last of its rounds' rewrites, whole
        assert len(store.done_steps(run_id)) == figures // 50
    store.close()


def test_a_results_setting_that_is_no_postgresql_url_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFLAB_RESULTS", "mysql://lab@db/results")
    monkeypatch.setenv("PERFLAB_WORKDIR", str(tmp_path / "work"))
    with pytest.raises(LabError) as raised:
        Store()
    assert "PERFLAB_RESULTS" in str(raised.value) and "postgresql://" in raised.value.fix
    assert not (tmp_path / "work" / "results.sqlite").exists()


def test_an_unreachable_results_database_is_named_without_its_password(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFLAB_RESULTS", "postgresql://lab:s3cret@127.0.0.1:1/results")
    with pytest.raises(LabError) as raised:
        Store(None)
    assert "postgresql://lab@127.0.0.1:1/results" in str(raised.value) and "s3cret" not in str(raised.value)
