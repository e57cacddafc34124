"""The placement seam: a scenario launches and loads only through its run's placement, and where a
scenario cannot run is declared once, by the scenario, and read from there by the runner."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest

from perflab import apps, plan, registry, results, runner, schedule
from perflab.lab import Lab
from perflab.placements import KUBERNETES, LOCAL
from perflab.placements.local import LocalPlacement, PinnedLoad
from perflab.probes.polling import PollResult
from perflab.progress import Progress
from perflab.scenario import Context
from perflab.store import Store
from perflab.targets import Target


class _Instance:
    """Ready after a set time, without a process: the placement under test decides what runs."""

    def __init__(self, placement: "_Placement", tag: str, ready_ms: float):
        self.placement, self.tag, self.ready_ms = placement, tag, ready_ms
        self.started = self.stopped = False

    def start(self):
        self.started = True
        return self

    def wait_until_ready(self, timeout_s: float, interval_ms: float = 20.0) -> PollResult:
        assert self.started and not self.stopped
        return PollResult(True, f"placed://{self.tag}/health/ready", self.ready_ms, 1, interval_ms, 0.0, 200, "")

    def stop(self):
        self.stopped = True


class _Placement:
    kind = "elsewhere"
    load = PinnedLoad()

    def __init__(self, ready_ms: list[float]):
        self.ready_ms = iter(ready_ms)
        self.instances: list[_Instance] = []

    def instance(self, spec, *, tag: str = "", port: int | None = None) -> _Instance:
        inst = _Instance(self, tag, next(self.ready_ms))
        self.instances.append(inst)
        return inst


def test_a_scenario_launches_through_the_runs_placement_and_records_what_its_instances_give(tmp_path):
    placement = _Placement([900.0, 300.0, 320.0])
    store = Store(tmp_path / "r.sqlite")
    the_plan = plan.validate({"name": "t", "scaleup": {"runs": 3}}, "t")
    run_id = store.begin_run(the_plan.data, {})
    lab = Lab(store, run_id, the_plan, None, None, None, None, Progress([], stream=io.StringIO(), live=False),
              tmp_path, placement=placement)
    app = SimpleNamespace(name="quarkus", for_mode=lambda mode: app, mode=lambda mode: SimpleNamespace(command=""),
                          db_server="postgresql")
    lab.spec = lambda app, mode, **kw: SimpleNamespace(app=app, mode=mode)  # no limits to derive here
    sc = registry.get("scaleup")
    sc.run(Context(lab, sc, app, "jvm", the_plan.settings("scaleup")))
    store.finish_run(run_id, "complete")
    view = results.load(store, run_id)
    urls = [f.extra["url"] for f in store.figures(run_id)]
    store.close()
    assert [i.tag for i in placement.instances] == ["scaleup0", "scaleup1", "scaleup2"]
    assert all(i.started and i.stopped for i in placement.instances)
    [cold] = view.find("scaleup", "ready_ms", point="cold")
    [warm] = view.find("scaleup", "ready_ms", point="warm")
    assert cold.values == [900.0] and warm.values == [300.0, 320.0]
    assert urls == [f"placed://scaleup{i}/health/ready" for i in range(3)]  # what the placement's instances said


def test_a_lab_without_a_placement_runs_on_this_machine_with_the_driver_on_the_drivers_cpus():
    topology = SimpleNamespace(driver=(1,), app=(0,), db=(1,))
    lab = Lab(None, "run", None, topology, None, None, None, None, None)
    assert isinstance(lab.placement, LocalPlacement) and lab.placement.kind == LOCAL
    assert lab.placement.load.cpus == (1,)


@pytest.mark.parametrize("connections, cpus, threads", [(1, (0, 1), 1), (40, (0, 1), 2), (40, (), 1), (3, (1,), 1)])
def test_a_closed_loop_gets_one_driver_thread_per_driver_cpu_and_never_more_than_its_connections(connections, cpus,
                                                                                                 threads):
    assert PinnedLoad(cpus).threads_for(connections) == threads


def test_a_run_on_a_cluster_leaves_out_what_a_scenario_says_it_cannot_do_there_and_nothing_else():
    scenarios = ["startup", "steady", "sweep", "density", "memory", "soak"]
    on_cluster = plan.validate({"name": "t", "scenarios": scenarios, "placement": {"kind": KUBERNETES}}, "t")
    here = plan.validate({"name": "t", "scenarios": scenarios}, "t")
    target = Target(apps.get("quarkus"), "jvm")
    left_out = [sc.name for sc in schedule.not_on_placement(on_cluster, target)]
    assert sorted(left_out) == ["memory", "soak"]  # each samples the app's process on this machine
    assert all(registry.get(name).why_not_on(KUBERNETES) for name in left_out)  # and says so, in its own words
    runs = {sc.name for sc in schedule.target_scenarios(on_cluster, target)}
    assert {"startup", "steady", "sweep", "density"} <= runs and not runs & set(left_out)
    assert schedule.not_on_placement(here, target) == []  # every scenario runs on one machine
    assert set(scenarios) <= {sc.name for sc in schedule.target_scenarios(here, target)}


def test_every_scenario_that_runs_on_a_cluster_and_loads_its_app_says_so_and_gets_the_driver():
    """A run on a cluster starts its load driver only for scenarios that declare sends_load: one that
    loads its app without saying so would find no driver there."""
    import inspect

    for sc in registry.all_scenarios():
        if sc.why_not_on(KUBERNETES):
            continue
        module = Path(inspect.getfile(sc.run))  # the scenario's module and its parts (steady_loop.py, ...)
        source = "".join(f.read_text() for f in [module, *module.parent.glob(f"{module.stem}_*.py")])
        assert sc.sends_load == ("ctx.load" in source), sc.name
