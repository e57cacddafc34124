"""Versions of one app are offered one rate at the open-loop point: a fraction of the oldest
version's measured throughput, so their p99s there are judged at equal load; an app alone keeps a
fraction of each launch's own throughput. With [steady] open_loop_basis every app/mode of the run
is offered that fraction of the basis app/mode's throughput (CPU per request at equal load)."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from perflab import results, rounds
from perflab.errors import LabError
from perflab.probes.sampling import Sample, SampleSeries
from perflab.report import versions as by_version
from perflab.report.version_changes import equal_load
from perflab.scenarios import steady
from perflab.store import Store
from perflab.targets import check_open_loop_basis

QUARKUS = ["quarkus@3.37.1/jvm", "quarkus@3.33.2/jvm", "quarkus@3.34.3/jvm"]


def _ctx(label: str, lab) -> SimpleNamespace:
    name, _, mode = label.partition("/")
    return SimpleNamespace(settings=SimpleNamespace(open_loop_fraction=0.5, open_loop_basis=lab.basis),
                           app=SimpleNamespace(name=name), mode=mode, lab=lab)


class _Lab(SimpleNamespace):
    def __init__(self, store: Store, run_id: str, labels: list[str], basis: str = ""):
        super().__init__(store=store, run_id=run_id, open_loop_basis=rounds.open_loop_bases(labels, basis),
                         open_loop_rates={}, basis=basis)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "results.sqlite")
    yield s
    s.close()


def test_the_oldest_version_is_known_for_each_app_mode_of_several_versions_only():
    found = rounds.oldest_versions([*QUARKUS, "spring-boot@4.1.1/jvm", "go-reference/native"])
    assert found == {label: "quarkus@3.33.2/jvm" for label in QUARKUS}


def test_every_version_is_offered_half_the_oldest_versions_throughput_whatever_its_own(store):
    lab = _Lab(store, store.begin_run({}, {}), [*QUARKUS, "spring-boot/jvm"])
    rate, basis = steady.open_loop_rate(_ctx("quarkus@3.33.2/jvm", lab), 4000.0, 1)
    assert rate == 2000 and basis["rate_basis"] == steady.OLDEST
    for label, own in (("quarkus@3.37.1/jvm", 6000.0), ("quarkus@3.34.3/jvm", 3000.0), ("quarkus@3.33.2/jvm", 5000.0)):
        assert steady.open_loop_rate(_ctx(label, lab), own, 2)[0] == 2000
    # an app alone: a fraction of its own launch, as before
    assert steady.open_loop_rate(_ctx("spring-boot/jvm", lab), 3000.0, 1) == (1500, {"rate_basis": steady.OWN})


def test_a_version_launched_before_the_oldest_measured_anything_falls_back_to_its_own_and_says_why(store):
    lab = _Lab(store, store.begin_run({}, {}), QUARKUS)
    rate, basis = steady.open_loop_rate(_ctx("quarkus@3.37.1/jvm", lab), 6000.0, 1)
    assert rate == 3000 and basis["rate_basis"] == steady.OWN and "quarkus@3.33.2/jvm" in basis["rate_why"]
    assert lab.open_loop_rates == {}


def test_a_resumed_run_finds_the_rate_its_first_part_set(store):
    run = store.begin_run({}, {})
    first = _Lab(store, run, QUARKUS)
    rate, basis = steady.open_loop_rate(_ctx("quarkus@3.33.2/jvm", first), 4000.0, 1)
    store.add_figure(run, "quarkus@3.33.2", "jvm", "steady", "offered_rate", rate, "req/s", repeat=1,
                     extra={"offered_rate": rate, **basis})
    resumed = _Lab(store, run, QUARKUS)  # a new Lab: nothing in memory
    assert steady.open_loop_rate(_ctx("quarkus@3.37.1/jvm", resumed), 7000.0, 3)[0] == 2000
    # a rate stored before the basis was named "of" (the oldest version's only) is found the same
    older = store.begin_run({}, {})
    store.add_figure(older, "quarkus@3.33.2", "jvm", "steady", "offered_rate", 1800, "req/s", repeat=1,
                     extra={"offered_rate": 1800, "rate_basis": steady.OLDEST,
                            "basis": {"oldest": "quarkus@3.33.2/jvm", "rate": 1800, "rps": 3600.0, "launch": 1,
                                      "fraction": 0.5}})
    rate, basis = steady.open_loop_rate(_ctx("quarkus@3.34.3/jvm", _Lab(store, older, QUARKUS)), 5000.0, 2)
    assert rate == 1800 and basis["basis"]["of"] == "quarkus@3.33.2/jvm"


def test_the_first_round_launches_each_apps_oldest_version_before_its_others_and_stays_balanced():
    labels = [*QUARKUS, "spring-boot@3.5.7/jvm", "spring-boot@4.1.1/jvm", "go-reference/native"]
    for seed in range(1, 40):
        orders = rounds.orders(seed, labels, 6)
        first = orders[0]
        assert first.index("quarkus@3.33.2/jvm") < min(first.index("quarkus@3.34.3/jvm"),
                                                      first.index("quarkus@3.37.1/jvm"))
        assert first.index("spring-boot@3.5.7/jvm") < first.index("spring-boot@4.1.1/jvm")
        places = Counter((label, i) for row in orders for i, label in enumerate(row))
        assert set(places.values()) == {1}  # a Williams block of 6: each app/mode once in every place
        after = Counter((row[i], row[i + 1]) for row in orders for i in range(len(labels) - 1))
        assert set(after.values()) == {1} and len(after) == 30


FIVE = ["quarkus/jvm", "spring-boot/jvm", "micronaut/jvm", "helidon/jvm", "go-reference/native"]


def test_with_a_basis_every_app_mode_is_offered_the_bases_fraction_whatever_its_own_throughput(store):
    lab = _Lab(store, store.begin_run({}, {}), FIVE, "spring-boot/jvm")
    rate, basis = steady.open_loop_rate(_ctx("spring-boot/jvm", lab), 2500.0, 1)
    assert rate == 1250 and basis["rate_basis"] == steady.COMMON and basis["basis"]["of"] == "spring-boot/jvm"
    for label, own in (("quarkus/jvm", 6000.0), ("go-reference/native", 20000.0), ("helidon/jvm", 4100.0),
                       ("spring-boot/jvm", 3000.0)):
        got, said = steady.open_loop_rate(_ctx(label, lab), own, 2)
        assert got == 1250 and said["rate_basis"] == steady.COMMON
    assert lab.open_loop_rates == {"spring-boot/jvm": {"of": "spring-boot/jvm", "rate": 1250, "rps": 2500.0,
                                                       "launch": 1, "fraction": 0.5}}
    # a resumed run (a new Lab, nothing in memory) finds the rate its first part stored
    run = lab.run_id
    store.add_figure(run, "spring-boot", "jvm", "steady", "offered_rate", rate, "req/s", repeat=1,
                     extra={"offered_rate": rate, **basis})
    resumed = _Lab(store, run, FIVE, "spring-boot/jvm")
    assert steady.open_loop_rate(_ctx("micronaut/jvm", resumed), 5000.0, 3)[0] == 1250


def test_with_a_basis_an_app_launched_before_the_basis_measured_falls_back_to_its_own_and_says_why(store):
    lab = _Lab(store, store.begin_run({}, {}), FIVE, "spring-boot/jvm")
    rate, basis = steady.open_loop_rate(_ctx("quarkus/jvm", lab), 6000.0, 1)
    assert rate == 3000 and basis["rate_basis"] == steady.OWN
    assert basis["rate_why"] == "spring-boot/jvm, whose throughput sets every app/mode's rate, had measured none yet"


def test_the_first_round_launches_the_basis_first_and_stays_balanced():
    for seed in range(1, 30):
        orders = rounds.orders(seed, FIVE, 10, first="spring-boot/jvm")
        assert orders[0][0] == "spring-boot/jvm"
        places = Counter((label, i) for row in orders for i, label in enumerate(row))
        assert set(places.values()) == {2}  # a Williams design of 5 (10 rows): each app/mode twice in every place
        after = Counter((row[i], row[i + 1]) for row in orders for i in range(len(FIVE) - 1))
        assert set(after.values()) == {2} and len(after) == 20


def test_an_open_loop_basis_not_among_the_plans_app_modes_is_an_error_naming_the_allowed_ones():
    plan = SimpleNamespace(name="frameworks", settings=lambda _: SimpleNamespace(open_loop_basis="spring/jvm"))
    found = [SimpleNamespace(label=label) for label in FIVE]
    with pytest.raises(LabError) as raised:
        check_open_loop_basis(plan, found)
    assert "'spring/jvm' is not one of the plan's app/modes" in str(raised.value)
    assert "spring-boot/jvm" in raised.value.fix and "go-reference/native" in raised.value.fix
    check_open_loop_basis(SimpleNamespace(name="x", settings=lambda _: SimpleNamespace(open_loop_basis="")), found)
    check_open_loop_basis(SimpleNamespace(name="x", settings=lambda _: SimpleNamespace(
        open_loop_basis="helidon/jvm")), found)


def _versions_run(store: Store, rates: dict[str, list[float]], shared: dict | None) -> results.RunView:
    run = store.begin_run({"name": "upgrade"}, {"rounds": {"seed": 1, "orders": []},
                                                **({"open_loop_rates": shared} if shared else {})})
    point, params = "fruits c=4 open loop 50%", {"path": "/fruits", "fraction": 0.5, "open_loop": True}
    for version, offered in rates.items():
        for r, rate in enumerate(offered, start=1):
            for metric, value in (("latency_p99_ms", 10.0 + r), ("offered_rate", rate)):
                store.add_figure(run, f"quarkus@{version}", "jvm", "steady", metric, value, "", point=point,
                                 params=params, repeat=r)
    store.finish_run(run, "complete")
    return results.load(store, run)


SHARED = {"quarkus@3.33.2/jvm": {"oldest": "quarkus@3.33.2/jvm", "rate": 2000, "rps": 4000.4, "launch": 1,
                                 "fraction": 0.5}}


def test_the_report_by_version_states_the_one_rate_and_what_it_is_half_of(store):
    view = _versions_run(store, {"3.33.2": [2000.0] * 3, "3.37.1": [2000.0] * 3}, SHARED)
    [line] = equal_load(view)
    assert line.startswith("quarkus/jvm: the open-loop point of every version was offered 2,000 req/s, 50% of the "
                           "oldest version's (3.33.2) steady throughput in its launch 1 (4,000 req/s)")
    assert "before that rate was known" not in line
    assert line in by_version.text_lines(view)
    assert "offered 2,000 req/s" in by_version.render(view)


def test_launches_offered_another_rate_are_counted(store):
    view = _versions_run(store, {"3.33.2": [2000.0] * 3, "3.37.1": [3100.0, 2000.0, 2000.0]}, SHARED)
    assert equal_load(view)[0].endswith("1 launch(es) ran before that rate was known and were offered a fraction "
                                        "of their own throughput")


def test_a_run_stored_before_versions_shared_a_rate_states_none(store):
    assert equal_load(_versions_run(store, {"3.33.2": [2000.0] * 3, "3.37.1": [2800.0] * 3}, None)) == []


def _sampled(cgroup: list[float | None], tree: list[float]) -> SimpleNamespace:
    """An instance whose sampler read the app's CPU once a second: its cgroup's and its processes'."""
    samples = [Sample(t_ns=i * 10**9, alive=True, procs=1, rss_bytes=1, cpu_s=t, cgroup_memory_bytes=1,
                      cgroup_cpu_s=c) for i, (c, t) in enumerate(zip(cgroup, tree))]
    return SimpleNamespace(sampler=SimpleNamespace(snapshot=lambda: SampleSeries(samples)))


def test_the_open_loop_points_cpu_per_request_is_the_apps_cpu_over_the_run_by_its_requests():
    # 4 s of open loop at 1,000 req/s in which the app's cgroup used 1.2 s of CPU: 0.3 ms a request
    inst = _sampled([5.0, 5.3, 5.6, 5.9, 6.2], [9.0, 9.1, 9.2, 9.3, 9.4])
    done = SimpleNamespace(requests=4000)
    assert steady.open_loop_cpu_ms(inst, done, 0, 4 * 10**9) == pytest.approx(0.3)
    # without the cgroup's reading, the processes' own CPU
    inst = _sampled([None] * 5, [9.0, 9.1, 9.2, 9.3, 9.4])
    assert steady.open_loop_cpu_ms(inst, done, 0, 4 * 10**9) == pytest.approx(0.1)
    assert steady.open_loop_cpu_ms(inst, SimpleNamespace(requests=0), 0, 4 * 10**9) is None
    assert steady.open_loop_cpu_ms(inst, done, 0, 0) is None  # one sample: no share
