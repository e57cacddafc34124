"""Plan validation: errors name the bad key and the allowed values; defaults are filled in."""

from __future__ import annotations

import pytest

from perflab import plan
from perflab.errors import LabError


def test_builtin_plans_validate_and_record_their_reductions():
    names = plan.builtin_names()
    assert {"quick", "full", "sizing", "rt2019", "lab2020", "kt2020"} <= set(names)
    for name in names:
        p = plan.load(name)
        assert p.name == name
        assert p["reductions"], f"{name} must say how it differs from its study"


def test_defaults_are_filled_in_so_the_stored_plan_is_complete():
    p = plan.validate({"name": "mine"})
    assert p["repeats"] == 3
    assert p["startup"]["poll_ms"] == 5.0
    assert p["sweep"]["series"][0]["path"] == "/fruits"
    assert p["limits"]["cpus"] == 1


def test_unknown_top_level_key_is_named_with_allowed_keys():
    with pytest.raises(LabError) as err:
        plan.validate({"name": "x", "repeat": 3})
    assert "repeat" in err.value.message
    assert "repeats" in err.value.fix


def test_an_unknown_key_close_to_a_known_one_is_suggested():
    with pytest.raises(LabError, match=r"unknown key repeat \(did you mean repeats\?\)"):
        plan.validate({"name": "x", "repeat": 3})
    with pytest.raises(LabError) as err:
        plan.validate({"name": "x", "zzz": 3})
    assert "did you mean" not in err.value.message


def test_unknown_nested_key_is_named_with_its_table():
    with pytest.raises(LabError) as err:
        plan.validate({"name": "x", "limits": {"memory": 512}})
    assert "limits.memory" in err.value.message
    assert "memory_mb" in err.value.fix


def test_unknown_scenario_lists_the_scenarios():
    with pytest.raises(LabError) as err:
        plan.validate({"name": "x", "scenarios": ["startup", "warp"]})
    assert "'warp'" in err.value.message
    assert "sweep" in err.value.fix


def test_wrong_types_are_reported():
    with pytest.raises(LabError, match="repeats must be an integer"):
        plan.validate({"name": "x", "repeats": "3"})
    with pytest.raises(LabError, match="limits.cpus must be a number"):
        plan.validate({"name": "x", "limits": {"cpus": True}})


def test_series_need_positive_connection_lists():
    with pytest.raises(LabError, match="connections must be a list of positive integers"):
        plan.validate({"name": "x", "sweep": {"series": [{"name": "a", "path": "/", "connections": [0]}]}})
    with pytest.raises(LabError, match="needs 'path'"):
        plan.validate({"name": "x", "sweep": {"series": [{"name": "a", "connections": [1]}]}})


def test_unknown_app_is_refused_when_apps_are_known():
    with pytest.raises(LabError) as err:
        plan.validate({"name": "x", "apps": ["quarkus", "micronaut"]}, known_apps=["quarkus", "spring-boot"])
    assert "micronaut" in err.value.message and "spring-boot" in err.value.fix


def test_startup_needs_a_warm_run_and_fine_polling():
    with pytest.raises(LabError, match="startup.runs"):
        plan.validate({"name": "x", "startup": {"runs": 1}})
    fed = plan.validate({"name": "x", "scenarios": ["startup", "steady"], "startup": {"runs": 1},
                         "steady": {"startup_figures": True}})
    assert fed["startup"]["runs"] == 1
    with pytest.raises(LabError, match="startup.runs"):  # steady would feed it, but does not run
        plan.validate({"name": "x", "scenarios": ["startup"], "startup": {"runs": 1},
                       "steady": {"startup_figures": True}})
    with pytest.raises(LabError, match="mode_scenarios.reactive"):  # an extra mode running startup alone
        plan.validate({"name": "x", "scenarios": ["startup", "steady"], "startup": {"runs": 1},
                       "steady": {"startup_figures": True}, "mode_scenarios": {"reactive": ["startup"]}})
    with pytest.raises(LabError, match="poll_ms"):
        plan.validate({"name": "x", "startup": {"poll_ms": 50}})


def test_missing_plan_names_the_builtins(tmp_path):
    with pytest.raises(LabError) as err:
        plan.load("nosuchplan")
    assert "quick" in err.value.fix
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n")
    with pytest.raises(LabError, match="not valid TOML"):
        plan.load(str(bad))


def test_a_budget_of_its_own_lets_time_decide_the_rounds_and_keeps_the_method():
    from perflab.store import method_hash

    quick = plan.load("quick")
    longer = plan.with_budget(quick, 45)
    cfg, own = longer.settings("rounds"), quick.settings("rounds")
    assert cfg.budget_min == 45 and own.budget_min == 15
    assert cfg.max_rounds > own.max_rounds  # the budget decides, not quick's maximum of 6
    assert (cfg.target, cfg.headline) == (own.target, own.headline)
    assert method_hash(longer.data, {}) == method_hash(quick.data, {})
    with pytest.raises(LabError, match="more than 0"):
        plan.with_budget(quick, 0)
    planned_only = plan.validate({**quick.data, "rounds": {**quick.data["rounds"], "target": 0.0}}, "p.toml")
    with pytest.raises(LabError, match="settles none"):
        plan.with_budget(planned_only, 45)
