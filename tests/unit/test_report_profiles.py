"""The report's profiles section on two apps' and two modes' profiles: which pairs are set side by
side, the sentence that names the gap's layers, and the differential flame graph's colours."""

from __future__ import annotations

import itertools
import re
from collections import Counter

import pytest

from perflab.profiles import flame
from perflab.profiles.layers import LAYERS
from perflab.profiles.merged import combine
from perflab.report import profiles


def _profile(app: str, mode: str, stacks: dict[str, int], layers_ms: dict[str, float]):
    full = {layer: layers_ms.get(layer, 0.0) for layer in LAYERS}
    meta = {"app": app, "mode": mode, "point": "fruits c=4", "launch": 1, "requests": 1000,
            "measured_ms": sum(full.values()), "layers_ms": full, "profiler": "test"}
    return combine([(meta, Counter({tuple(k.split(";")): v for k, v in stacks.items()}), Counter())])


QUARKUS = _profile("quarkus", "jvm", {"main;http;json": 60, "main;http;orm": 40}, {"http": 0.3, "serialization": 0.1,
                                                                                   "persistence": 0.2})
SPRING = _profile("spring-boot", "jvm", {"main;http;json": 30, "main;http;orm": 70}, {"http": 0.35, "serialization": 0.1,
                                                                                      "persistence": 0.6, "gc": 0.1})
SPRING_VT = _profile("spring-boot", "virtual-threads", {"main;http;orm": 10}, {"http": 0.4, "persistence": 0.6})


def test_apps_are_set_against_the_first_and_modes_against_their_apps_main_mode():
    pairs = profiles.pairs([QUARKUS, SPRING, SPRING_VT])
    assert [(a.target, b.target) for a, b in pairs] == [("spring-boot/jvm", "spring-boot/virtual-threads"),
                                                        ("quarkus/jvm", "spring-boot/jvm")]


def test_the_section_names_the_layers_that_make_the_gap_with_their_ms_per_request():
    section = profiles.section([QUARKUS, SPRING], itertools.count(1))
    assert [b["title"] for b in section["blocks"]] == ["quarkus/jvm fruits c=4", "spring-boot/jvm fruits c=4"]
    [d] = section["diffs"]
    # 0.4 of the 0.55 is 73 %: the next layer in the gap's direction joins it to pass 80 %
    assert d["sentence"] == ("spring-boot/jvm uses +0.550 ms/request of CPU against quarkus/jvm; most of it: "
                             "persistence/ORM +0.400, GC +0.100 ms/request")
    [table] = d["tables"]
    assert table.rows[0] == ["persistence/ORM", "0.200", "0.600", "+0.400"]
    assert table.rows[-1] == ["measured app CPU per request", "0.600", "1.150", "+0.550"]
    layer_rows = section["blocks"][1]["tables"][0].rows
    assert layer_rows[-2][1] == layer_rows[-1][1] == "1.150"  # the sum of the layers beside the measured figure


def test_the_differential_flame_graph_is_red_where_b_grew_and_blue_where_it_shrank():
    fig = flame.differential_graph(QUARKUS.cpu, SPRING.cpu, "t", "quarkus", "spring")
    trace = fig.data[0]
    colour = dict(zip(trace.ids, trace.marker.colors))
    assert colour["all;main;http;orm"] == pytest.approx(30.0)  # 40 % -> 70 % of the samples
    assert colour["all;main;http;json"] == pytest.approx(-30.0)
    assert trace.marker.reversescale is True and trace.marker.colorscale  # RdBu reversed: positive is red
    values = dict(zip(trace.ids, trace.values))
    assert values["all;main;http"] == pytest.approx(values["all;main;http;orm"] + values["all;main;http;json"])


def _store_profile(store, run_id: str, p) -> None:
    """A profile's files as steady stores them (perflab.profiles.recording.Window._store)."""
    import json

    from perflab.profiles import folded, storage

    where = storage.folder(store, run_id, p.app, p.mode)
    meta = {"app": p.app, "mode": p.mode, "point": p.point, "launch": 1, "requests": p.requests,
            "measured_ms": p.measured_ms, "layers_ms": p.layers_ms, "profiler": "test"}
    files = [where / "launch1.cpu.folded.gz", where / "launch1.alloc.folded.gz", where / "launch1.json"]
    folded.write(files[0], p.cpu)
    folded.write(files[1], Counter({("main", "alloc"): 4096}))
    files[2].write_text(json.dumps(meta))
    for f in files:
        store.register_file(run_id, p.app, p.mode, "steady", storage.KIND, f)


def test_the_run_report_shows_the_profiles_and_results_show_lists_them_until_pruned(workdir, capsys):
    from perflab import cli
    from perflab.report import write_report
    from perflab.store import Store
    from tests.unit.test_report import make_run

    store = Store()
    run_id = make_run(store).run_id
    for p in (QUARKUS, SPRING):
        _store_profile(store, run_id, p)
    paths = write_report(store, run_id)
    html, md = paths.html.read_text(), paths.markdown.read_text()
    assert 'id="profiles"' in html and len(re.findall(r'"type": ?"icicle"', html)) == 3  # two flame graphs, one differential
    assert "spring-boot/jvm uses +0.550 ms/request of CPU against quarkus/jvm" in md

    assert cli.main(["results", "show", run_id]) == 0
    shown = capsys.readouterr().out
    assert "profiles: 6 files" in shown and "quarkus/jvm" in shown.split("profiles: ")[1]
    assert cli.main(["results", "prune", run_id]) == 2  # without --profiles: refused, nothing removed
    assert len(Store().files(run_id)) >= 6
    assert cli.main(["results", "prune", run_id, "--profiles"]) == 0
    assert "removed 6 profile files" in capsys.readouterr().out
    assert not [f for f in Store().files(run_id) if f["kind"] == "profile"]
    assert "profiles:" not in (cli.main(["results", "show", run_id]), capsys.readouterr().out)[1]
    assert 'id="profiles"' not in write_report(Store(), run_id).html.read_text()
