"""The report's profiles section on two apps' and two modes' profiles: which pairs are set side by
side, the sentence that names the gap's layers, and the differential flame graph's colours."""

from __future__ import annotations

import itertools
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
