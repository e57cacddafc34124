"""Profiles without a process: pprof's traces (real outputs in tests/fixtures/pprof), the folded
format's errors, the layer data files, the breakdown's sum rule, the gap's layers, and the plan's
[profile] switch."""

from __future__ import annotations

from pathlib import Path

import pytest

from perflab import plan
from perflab.errors import LabError
from perflab.profiles import diff, folded, gopprof, layers
from perflab.profiles.merged import combine
from perflab.store import method_hash

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pprof"


def test_pprof_traces_become_root_first_stacks_and_the_go_mapping_finds_the_http_server():
    cpu = gopprof.parse_traces((FIXTURES / "cpu-traces.txt").read_text())
    assert folded.total(cpu) == pytest.approx(1260.0)  # "Total samples = 1.26s" in the file's header
    served = [s for s in cpu if "net/http.(*conn).serve" in s]
    assert served and all(s[0] == "net/http.(*conn).serve" for s in served)  # the root first
    assert any(s[-1] == "internal/runtime/syscall/linux.Syscall6" for s in served)  # the leaf last
    by_layer = layers.attribute(cpu, layers.for_framework("Go"))
    assert by_layer["http"] == sum(w for s, w in cpu.items() if any(f.startswith("net/http.") for f in s))
    assert by_layer["http"] > by_layer["other"] > 0


def test_pprof_allocation_blocks_with_their_object_size_line_parse_to_bytes():
    alloc = gopprof.parse_traces((FIXTURES / "alloc-traces.txt").read_text())
    assert alloc[("net/http.(*conn).serve", "net/http.serverHandler.ServeHTTP", "net/http.(*ServeMux).ServeHTTP",
                  "net/http.HandlerFunc.ServeHTTP", "main.servePprof.func1",
                  "runtime/pprof.StartCPUProfile")] == pytest.approx(1.16e6)
    assert not any(f.startswith("bytes:") for s in alloc for f in s)


def test_a_value_pprof_is_not_known_to_print_is_an_error_not_a_guess():
    with pytest.raises(LabError, match="3parsecs"):
        gopprof.parse_traces("-----------+------\n  3parsecs  main.f\n")


def test_a_folded_line_without_a_weight_names_its_line():
    assert folded.loads("a;b 2\na;c 1\n") == {("a", "b"): 2, ("a", "c"): 1}
    with pytest.raises(LabError, match="line 2"):
        folded.loads("a;b 2\na;c many\n", "x.folded")


def test_every_layer_file_reads_and_names_only_known_layers(tmp_path):
    for name in ("Quarkus", "Spring Boot", "Spring WebFlux", "Thorntail", "Go", "StandIn"):
        assert layers.for_framework(name).prefixes
    assert layers.for_framework("Quarkus").files == ("jvm.toml", "quarkus.toml")
    assert layers.for_framework("StandIn").files == ("jvm.toml",)
    bad = tmp_path / "bad.toml"
    bad.write_text('[layers]\ndatabase = ["org.x."]\n')
    with pytest.raises(LabError, match="unknown layer 'database'"):
        layers._read(bad)


def test_the_longest_prefix_wins_within_a_frame():
    m = layers.for_framework("Spring Boot")
    assert m.layer_of("org.springframework.http.converter.json.MappingJackson2HttpMessageConverter.write") == \
        "serialization"
    assert m.layer_of("org.springframework.web.servlet.DispatcherServlet.doDispatch") == "http"
    assert m.layer_of("java.lang.String.hashCode") is None


@pytest.mark.parametrize("java_ms", [1.2, None])
def test_the_layers_sum_to_the_measured_cpu_per_request(java_ms):
    samples = {"http": 30, "jdbc": 10}
    b = layers.breakdown(samples, measured_ms=2.0, java_ms=java_ms, gc_ms=0.3, jit_ms=0.1)
    assert b.total_ms == pytest.approx(2.0)
    assert (b.layers["gc"], b.layers["jit"]) == (0.3, 0.1)
    share_of = java_ms if java_ms is not None else 2.0 - 0.4
    assert b.layers["http"] == pytest.approx(3 * b.layers["jdbc"]) and b.layers["jdbc"] == pytest.approx(share_of / 4)


def test_without_samples_the_java_threads_cpu_is_named_other():
    b = layers.breakdown({}, measured_ms=1.0, java_ms=0.7, gc_ms=0.2)
    assert b.layers["other"] == pytest.approx(0.8) and b.total_ms == pytest.approx(1.0)


def _profile(mode: str, layers_ms: dict[str, float], requests: int = 100) -> tuple[dict, folded.Stacks, folded.Stacks]:
    full = {layer: layers_ms.get(layer, 0.0) for layer in layers.LAYERS}
    meta = {"app": "a", "mode": mode, "point": "p", "launch": 1, "requests": requests,
            "measured_ms": sum(full.values()), "layers_ms": full}
    return meta, folded.Stacks({("x",): 1}), folded.Stacks()


def test_launches_combine_weighted_by_their_requests_and_still_sum():
    one, two = _profile("jvm", {"http": 1.0}, 100), _profile("jvm", {"http": 2.0, "gc": 1.0}, 300)
    two[0]["launch"] = 2
    p = combine([one, two])
    assert p.layers_ms["http"] == pytest.approx((100 * 1.0 + 300 * 2.0) / 400)
    assert sum(p.layers_ms.values()) == pytest.approx(p.measured_ms) and p.launches == [1, 2]


def test_the_gap_is_named_by_the_layers_that_make_it():
    a = combine([_profile("jvm", {"http": 0.5, "persistence": 0.4, "gc": 0.1})])
    b = combine([_profile("vt", {"http": 0.6, "persistence": 1.2, "gc": 0.3, "logging": 0.0})])
    d = diff.difference(a, b)
    assert d.measured_change_ms == pytest.approx(1.1)
    assert [c.layer for c in d.gap_layers()] == ["persistence", "gc"]  # 0.8 + 0.2 of 1.1: over 80 %
    assert sum(c.change_ms for c in d.layers) == pytest.approx(d.measured_change_ms)


def test_profiling_is_a_plan_setting_that_changes_the_method():
    base = plan.load("quick")
    assert base["profile"]["enabled"] is False
    on = plan.with_profiling(base)
    assert on["profile"]["enabled"] is True
    assert method_hash(on.data, {}) != method_hash(base.data, {})
    with pytest.raises(LabError, match="profile.enabled must be true/false"):
        plan.validate({**base.data, "profile": {"enabled": "yes"}}, "p.toml")
    with pytest.raises(LabError, match="unknown key profile.cpu"):
        plan.validate({**base.data, "profile": {"cpu": True}}, "p.toml")


def test_profiling_pods_on_a_cluster_is_refused_with_the_reason():
    base = plan.load("quick")
    with pytest.raises(LabError, match="profile.enabled needs placement.kind"):
        plan.validate({**base.data, "profile": {"enabled": True}, "placement": {"kind": "kubernetes"}}, "p.toml")
    plan.validate({**base.data, "placement": {"kind": "kubernetes"}}, "p.toml")  # unprofiled: as before
