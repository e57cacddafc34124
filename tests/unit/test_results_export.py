"""`perflab results export` and `import`: a run moved into another store keeps every row it had;
importing twice changes nothing; a run already there with other content, a file that is not an
export, of a newer version or truncated is refused with nothing written; an imported run of another
machine is shown with its machine and never pooled with this machine's runs."""

from __future__ import annotations

import io
import json
import platform
from pathlib import Path

import numpy as np
import pytest

from perflab import cli, results_export, results_import, run_history
from perflab.errors import LabError
from perflab.profiles import storage as profile_storage
from perflab.report import history
from perflab.report import site as site_mod
from perflab.store import Store
from tests.unit.test_history import ENV, PLAN, _add_run

INTERVAL = {"estimate": 0.5, "low": 0.45, "high": 0.55, "n": 3, "paired": True, "sd_log": 0.04}
# every table that holds rows of a run, and the column naming the run
RUN_TABLES = {"runs": "id", "figures": "run_id", "outcomes": "run_id", "steps": "run_id", "rounds": "run_id",
              "launches": "run_id", "targets": "run_id"}


def _full_run(store: Store, n: int, rng, env: dict = ENV) -> str:
    """A run with a row in every table: figures and rounds (test_history's run), an outcome, steps,
    targets, launches with canary readings, a profile summary and a raw driver output file."""
    run = _add_run(store, n, rng, env=env)
    store.add_outcome(run, "quarkus", "jvm", "steady", "failed", "the app stopped answering")
    store.add_step(run, "quarkus/jvm steady", 120.0, 131.5)
    store.add_step(run, "round 1", 300.0, float("nan"))
    store.set_targets(run, [("quarkus/jvm", True, True), ("go-ref/jvm", False, None)])
    store.save_rounds(run, {"seed": 7, "design": "williams", "target": 0.1, "rounds": 1, "ended": "settled",
                            "orders": [["quarkus/jvm", "go-ref/jvm"], ["go-ref/jvm"]],
                            "ratios": [{"ratio": "quarkus/jvm / go-ref/jvm", "interval": {"estimate": 0.5}}],
                            "launches": [{"round": 1, "place": 1, "label": "quarkus/jvm", "value": 20000.0,
                                          "failed": "", "took_s": 95.0, "launched": ["steady"],
                                          "canary": {"app_cpu_ms": {"before": 41.0, "after": 42.5}}}]})
    where = profile_storage.folder(store, run, "quarkus", "jvm")
    (where / "launch1.json").write_text(json.dumps({"app": "quarkus", "launch": 1, "requests": 1234}))
    (where / "launch1.cpu.folded.gz").write_bytes(b"raw")
    for name in ("launch1.json", "launch1.cpu.folded.gz"):
        store.register_file(run, "quarkus", "jvm", "steady", profile_storage.KIND, where / name)
    store.add_file(run, "quarkus", "jvm", "steady", "driver-output", "c32.txt", "Requests/sec: 20000")
    return run


def _rows(store: Store, run_id: str) -> dict[str, list[tuple]]:
    """Every row of the run in every table, without the store's own row ids."""
    out = {}
    for table, key in RUN_TABLES.items():
        rows = store.db.execute(f"SELECT * FROM {table} WHERE {key}=? ORDER BY rowid", (run_id,)).fetchall()
        out[table] = [tuple(r[c] for c in r.keys() if not (c == "id" and table != "runs")) for r in rows]
    return out


def _same(a: dict[str, list[tuple]], b: dict[str, list[tuple]]) -> bool:
    # NaN is stored as NaN on both sides; compared as text it equals itself
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _export_text(store: Store, ids: list[str]) -> str:
    return json.dumps(results_export.document(store, ids))


def _import(store: Store, text: str) -> list[tuple[str, bool]]:
    return results_import.import_runs(store, results_import.parse(text, "the export"))


@pytest.fixture
def source(tmp_path):
    s = Store(tmp_path / "from" / "results.sqlite")
    rng = np.random.default_rng(5)
    ids = [_full_run(s, n, rng, env={**ENV, "hostname": "ci-runner-7"}) for n in range(2)]
    yield s, ids
    s.close()


@pytest.fixture
def target(tmp_path):
    s = Store(tmp_path / "to" / "results.sqlite")
    yield s
    s.close()


def test_every_row_of_every_run_arrives_unchanged_in_a_fresh_store(source, target):
    src, ids = source
    assert _import(target, _export_text(src, ids)) == [(ids[0], True), (ids[1], True)]
    for run_id in ids:
        before, after = _rows(src, run_id), _rows(target, run_id)
        assert all(before[t] for t in RUN_TABLES)  # the fixture filled every table
        assert _same(before, after)
    # the profile summary comes along under the same path; the raw files do not
    carried = target.files(ids[0])
    assert [(f["kind"], Path(f["path"]).name) for f in carried] == [(profile_storage.KIND, "launch1.json")]
    assert json.loads((target.path.parent / carried[0]["path"]).read_text())["requests"] == 1234


def test_every_column_the_store_keeps_for_a_run_is_in_the_format(target):
    carried = {"runs": set(results_export.RUN_COLUMNS) | {"id"}, "rounds": set(results_export.ROUNDS_COLUMNS)}
    carried.update({t: set(cols) for t, (cols, _) in results_export.ROW_TABLES.items()})
    for table, key in RUN_TABLES.items():
        columns = {r["name"] for r in target.db.execute(f"PRAGMA table_info({table})")} - {key, "id"}
        assert columns <= carried[table], f"{table}: {columns - carried[table]} not exported"


def test_importing_twice_changes_nothing_and_says_the_runs_were_skipped(source, target):
    src, ids = source
    text = _export_text(src, ids)
    _import(target, text)
    before = {run_id: _rows(target, run_id) for run_id in ids}
    assert _import(target, text) == [(ids[0], False), (ids[1], False)]
    assert all(_same(before[run_id], _rows(target, run_id)) for run_id in ids)
    assert target.db.execute("SELECT COUNT(*) FROM figures").fetchone()[0] == sum(len(before[i]["figures"]) for i in ids)


def test_an_import_keeps_the_runs_already_in_the_store(source, target):
    src, ids = source
    own = _full_run(target, 30, np.random.default_rng(6))
    own_rows = _rows(target, own)
    _import(target, _export_text(src, ids[:1]))
    assert {r["id"] for r in target.runs()} == {own, ids[0]}
    assert _same(own_rows, _rows(target, own))


def test_a_run_already_here_with_other_content_refuses_the_whole_file(source, target):
    src, ids = source
    _import(target, _export_text(src, ids[:1]))
    doc = results_export.document(src, ids)
    doc["runs"][0]["figures"][0]["value"] += 1
    with pytest.raises(LabError) as err:
        _import(target, json.dumps(doc))
    assert ids[0] in err.value.message and "other content" in err.value.message
    assert target.run(ids[1]) is None  # the other run of the file is not written either


@pytest.mark.parametrize("mangle, says", [
    (lambda text: text[: len(text) // 2], "truncated"),
    (lambda text: "<html>not json</html>", "not JSON"),
    (lambda text: json.dumps({**json.loads(text), "format": "something-else"}), "not a perflab results export"),
    (lambda text: json.dumps({**json.loads(text), "version": results_export.VERSION + 1}), "newer than this perflab"),
    (lambda text: json.dumps({**json.loads(text), "version": "1"}), "is not a version"),
    (lambda text: text.replace('"outcomes"', '"outcome"', 1), "missing field(s) outcomes"),
    (lambda text: text.replace('"id": "', '"id": "../', 1), "is not a run id"),
])
def test_a_file_that_is_not_a_whole_export_of_a_known_version_is_refused_with_nothing_written(source, target,
                                                                                                mangle, says):
    src, ids = source
    with pytest.raises(LabError) as err:
        _import(target, mangle(_export_text(src, ids)))
    assert says in err.value.message
    assert target.runs() == []


def test_a_profile_summary_path_outside_its_run_is_refused(source, target):
    src, ids = source
    doc = results_export.document(src, ids[:1])
    doc["runs"][0]["profiles"][0]["path"] = "runs/../../elsewhere.json"
    with pytest.raises(LabError, match="not a profile summary"):
        _import(target, json.dumps(doc))


def test_the_command_line_exports_to_a_file_and_imports_from_standard_input(source, tmp_path, monkeypatch, capsys):
    src, ids = source
    monkeypatch.setenv("PERFLAB_WORKDIR", str(src.path.parent))
    out = tmp_path / "runs.json"
    # the shortest prefix naming the first run alone (both runs may begin in the same second)
    prefix = next(ids[0][:k] for k in range(16, len(ids[0]) + 1) if not ids[1].startswith(ids[0][:k]))
    assert cli.main(["results", "export", prefix, "last", "--out", str(out)]) == 0
    assert [r["id"] for r in json.loads(out.read_text())["runs"]] == [ids[0], ids[1]]
    monkeypatch.setenv("PERFLAB_WORKDIR", str(tmp_path / "elsewhere"))
    for said in ("imported", "already here with the same content, skipped"):
        monkeypatch.setattr("sys.stdin", io.StringIO(out.read_text()))
        capsys.readouterr()
        assert cli.main(["results", "import", "-"]) == 0
        assert f"{ids[0]}: {said}" in capsys.readouterr().out
    assert cli.main(["results", "import", str(tmp_path / "absent.json")]) == 2
    assert cli.main(["results", "import", str(src.path)]) == 2  # the SQLite file itself
    assert f"{src.path} is not a perflab results export" in capsys.readouterr().err
    assert cli.main(["results", "export", "no-such-run"]) == 2


def _another_machines_runs(store: Store, tmp_path: Path, rng, count: int, first: int) -> list[str]:
    """Runs of the same plan and method measured on lab-2, imported into `store`."""
    there = Store(tmp_path / "lab-2" / "results.sqlite")
    ids = [_add_run(there, n, rng, env={**ENV, "hostname": "lab-2"}) for n in range(first, first + count)]
    _import(store, _export_text(there, ids))
    there.close()
    return ids


def test_an_imported_run_of_another_machine_is_its_own_series_and_shown_with_its_machine(target, tmp_path):
    rng = np.random.default_rng(8)
    here = [_add_run(target, n, rng) for n in range(3)]
    imported = _another_machines_runs(target, tmp_path, rng, 3, 3)
    groups = history.series_groups(history.runs_of(target, PLAN["name"]))
    assert sorted([v.id for v in g] for g in groups.values()) == sorted([here, imported])
    site = site_mod.build(target, tmp_path / "site")
    index = site.index.read_text()
    row = next(r for r in index.split("<tr") if imported[0] in r)
    assert "lab-2 (Test CPU 1)" in row and "lab-1" not in row


def test_imported_runs_of_another_machine_neither_join_nor_crowd_out_this_machine_s_history(target, tmp_path):
    rng = np.random.default_rng(9)
    here = [_add_run(target, n, rng) for n in range(2)]
    for run_id in [*here, *_another_machines_runs(target, tmp_path, rng, 3, 2)]:  # lab-2's are the newest
        target.db.execute("UPDATE runs SET status='complete' WHERE id=?", (run_id,))
        target.save_rounds(run_id, {"ratios": [{"ratio": "quarkus/jvm / go-ref/jvm", "numerator": "quarkus/jvm",
                                                "denominator": "go-ref/jvm", "interval": INTERVAL}]})
    method = target.run(here[0])["method_hash"]
    assert run_history.load_for(target, PLAN["name"], method, "lab-1", limit=2).runs == here


def test_how_long_steps_take_here_is_read_from_this_machine_s_runs_only(target, tmp_path, monkeypatch):
    monkeypatch.setattr(platform, "node", lambda: "lab-1")
    rng = np.random.default_rng(10)
    mine = _add_run(target, 0, rng)
    target.add_step(mine, "quarkus/jvm steady", 100.0, 110.0)
    there = Store(tmp_path / "lab-2" / "results.sqlite")
    theirs = _add_run(there, 1, rng, env={**ENV, "hostname": "lab-2"})
    there.add_step(theirs, "quarkus/jvm steady", 100.0, 400.0)
    _import(target, _export_text(there, [theirs]))
    there.close()
    for run_id in (mine, theirs):
        target.db.execute("UPDATE runs SET status='complete' WHERE id=?", (run_id,))
    method = target.run(mine)["method_hash"]
    assert target.step_durations(PLAN["name"], method) == {"quarkus/jvm steady": 110.0}
    assert target.paces() == {"steady": pytest.approx(1.1)}


def test_an_import_that_fails_half_way_leaves_the_store_and_the_work_directory_as_they_were(source, target,
                                                                                               monkeypatch):
    src, ids = source
    write_run = results_import._write_run

    def full_disk_at_the_second_run(store, run, written):
        write_run(store, run, written)
        if run["id"] == ids[1]:
            raise OSError("no space left on device")
    monkeypatch.setattr(results_import, "_write_run", full_disk_at_the_second_run)
    with pytest.raises(OSError):
        _import(target, _export_text(src, ids))
    assert target.runs() == [] and target.db.execute("SELECT COUNT(*) FROM figures").fetchone()[0] == 0
    assert not list((target.path.parent / "runs").rglob("*.json"))


def test_the_report_of_an_imported_run_reads_as_the_report_of_the_run_where_it_was_measured(tmp_path, target):
    from perflab.report import write_report
    from tests.unit.test_report import make_run

    there = Store(tmp_path / "there" / "results.sqlite")
    run_id = make_run(there).run_id
    _import(target, _export_text(there, [run_id]))
    measured = write_report(there, run_id, tmp_path / "report-there").markdown.read_text()
    imported = write_report(target, run_id, tmp_path / "report-here").markdown.read_text()
    there.close()
    assert "quarkus" in measured and imported == measured
