"""App descriptors: validation errors name the bad key; modes, skip_apps and API checks (the build
cache, which runs builds, is tests/lab/test_app_builds.py)."""

from __future__ import annotations

import pytest

from perflab import apps
from perflab.errors import LabError
from tests.conftest import write_standin_app


def test_every_repository_app_descriptor_loads():
    found = apps.discover()
    assert {"quarkus", "spring-boot"} <= set(found)
    for app in found.values():
        assert app.modes, app.name
        assert app.ready_path.startswith("/")


def test_unknown_key_is_named_with_the_allowed_ones(tmp_path):
    app = write_standin_app(tmp_path)
    desc = app / "perflab.toml"
    desc.write_text(desc.read_text().replace('ready_path =', 'readypath = "/x"\nready_path ='))
    with pytest.raises(LabError) as err:
        apps.load_descriptor(desc)
    assert "readypath" in err.value.message
    assert "ready_path" in err.value.fix


@pytest.mark.parametrize("change, says", [
    (('ready_path =', 'ready_pth = "/x"\nready_path ='), "unknown key ready_pth (did you mean ready_path?)"),
    (('name = "standin"', 'name = "standin"\nport = "8080"'), "port must be an integer"),
    (('artifact = "out/artifact.txt"', ''), "build needs 'artifact'"),
    (('[modes.jvm]', '[modes.jvm]\nrequires = ["gpu"]'), "modes.jvm.requires[0] must be 'native-image', got 'gpu'"),
    (('[modes.jvm]', '[modes.jvm]\naot = "yes"'), "modes.jvm.aot must be 'train', got 'yes'"),
    (('STANDIN_ALLOC_MB = "0"', 'STANDIN_ALLOC_MB = 0'), "modes.jvm.env.STANDIN_ALLOC_MB must be a string, got 0"),
])
def test_a_bad_descriptor_names_the_key_and_what_is_wrong(tmp_path, change, says):
    desc = write_standin_app(tmp_path) / "perflab.toml"
    assert change[0] in desc.read_text()
    desc.write_text(desc.read_text().replace(*change))
    with pytest.raises(LabError) as err:
        apps.load_descriptor(desc)
    assert says in err.value.message and str(desc) in err.value.message


def test_startup_regex_needs_a_named_group(tmp_path):
    app = write_standin_app(tmp_path)
    desc = app / "perflab.toml"
    desc.write_text(desc.read_text().replace("(?P<millis>[0-9.]+)", "([0-9.]+)"))
    with pytest.raises(LabError, match="seconds' or 'millis"):
        apps.load_descriptor(desc)


def test_unknown_mode_lists_the_modes(tmp_path):
    app = apps.load_descriptor(write_standin_app(tmp_path) / "perflab.toml")
    with pytest.raises(LabError) as err:
        app.mode("native")
    assert "jvm" in err.value.fix


def test_all_selects_only_the_apps_that_serve_the_contract(tmp_path):
    from perflab import plan as plans
    from perflab.targets import select_targets
    write_standin_app(tmp_path, "contract-app")
    own = write_standin_app(tmp_path, "own-api-app")
    desc = own / "perflab.toml"
    desc.write_text('api = "study"\n' + desc.read_text())
    known = ["contract-app", "own-api-app"]
    every = plans.validate({"name": "t", "scenarios": ["startup"]}, "t", known_apps=known)
    assert [t.app.name for t in select_targets(every, tmp_path)] == ["contract-app"]
    named = plans.validate({"name": "t", "scenarios": ["startup"], "apps": ["own-api-app"]}, "t", known_apps=known)
    assert [t.app.name for t in select_targets(named, tmp_path)] == ["own-api-app"]


def test_skip_apps_leaves_an_app_out_of_all_and_must_name_a_known_app(tmp_path):
    from perflab import plan as plans
    from perflab.targets import select_targets
    for name in ("first", "variant", "third"):
        write_standin_app(tmp_path, name)
    known = ["first", "variant", "third"]
    skipping = plans.validate({"name": "t", "scenarios": ["startup"], "skip_apps": ["variant"]}, "t", known_apps=known)
    assert sorted(t.app.name for t in select_targets(skipping, tmp_path)) == ["first", "third"]
    with pytest.raises(LabError, match="skip_apps"):
        plans.validate({"name": "t", "skip_apps": ["nosuch"]}, "t", known_apps=known)


def test_api_must_be_a_name(tmp_path):
    app = write_standin_app(tmp_path)
    desc = app / "perflab.toml"
    desc.write_text('api = "Not A Name"\n' + desc.read_text())
    with pytest.raises(LabError, match="api must be"):
        apps.load_descriptor(desc)


def test_a_scenario_that_sends_the_contract_requests_is_skipped_for_an_own_api(tmp_path):
    from perflab import plan as plans
    from perflab.schedule import not_applicable, target_scenarios
    from perflab.targets import select_targets
    write_standin_app(tmp_path, "contract-app")
    own = write_standin_app(tmp_path, "own-api-app")
    (own / "perflab.toml").write_text('api = "study"\n' + (own / "perflab.toml").read_text())
    plan = plans.validate({"name": "t", "scenarios": ["startup", "write"], "apps": ["contract-app", "own-api-app"]},
                          "t", known_apps=["contract-app", "own-api-app"])
    contract_app, own_app = select_targets(plan, tmp_path)
    assert [s.name for s in target_scenarios(plan, contract_app)] == ["startup", "write"]
    assert [s.name for s in target_scenarios(plan, own_app)] == ["startup"]
    skipped = not_applicable(plan, own_app)
    assert [s.name for s in skipped] == ["write"] and "API of its own" in skipped[0].applies_why
    assert not_applicable(plan, contract_app) == []
