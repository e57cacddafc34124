"""App descriptors: validation errors name the bad key; builds are cached by the sources' hash."""

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


def test_second_build_without_change_runs_no_build_and_a_change_rebuilds(tmp_path, workdir):
    app = apps.load_descriptor(write_standin_app(tmp_path) / "perflab.toml")
    count = app.dir / "build-count"
    first = apps.build(app, log=lambda m: None)
    assert not first.cached and count.read_text().count("built") == 1
    messages = []
    second = apps.build(app, log=messages.append)
    assert second.cached and count.read_text().count("built") == 1
    assert "nothing to build" in messages[0]
    (app.dir / "src" / "version.txt").write_text("2\n")
    third = apps.build(app, log=lambda m: None)
    assert not third.cached and count.read_text().count("built") == 2
    assert third.hash != first.hash


def test_missing_artifact_forces_a_rebuild(tmp_path, workdir):
    app = apps.load_descriptor(write_standin_app(tmp_path) / "perflab.toml")
    apps.build(app, log=lambda m: None)
    app.artifact_path.unlink()
    assert not apps.build(app, log=lambda m: None).cached


def test_failing_build_shows_the_log_tail(tmp_path, workdir):
    app_dir = write_standin_app(tmp_path)
    desc = app_dir / "perflab.toml"
    desc.write_text(desc.read_text().replace('command = ["sh", "-c", "mkdir', 'command = ["sh", "-c", "echo compiler says no; exit 3; mkdir'))
    app = apps.load_descriptor(desc)
    with pytest.raises(LabError) as err:
        apps.build(app, log=lambda m: None)
    assert "exit 3" in err.value.message
    assert "compiler says no" in err.value.details


def test_all_selects_only_the_apps_that_serve_the_contract(tmp_path):
    from perflab import plan as plans
    from perflab.runner import select_targets
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
    from perflab.runner import select_targets
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
    from perflab.runner import not_applicable, select_targets, target_scenarios
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
