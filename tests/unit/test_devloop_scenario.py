"""devloop's own rules: when the app's in-memory state counts as kept across a change, the
broker-restart setting's check, and that the time estimate counts what runs."""

from __future__ import annotations

import pytest

from perflab import apps, settings
from perflab.devloop.roundtrip import state_kept
from perflab.errors import LabError
from perflab.scenarios import devloop


def test_state_counts_as_kept_only_in_the_same_process_with_no_start_logged_again():
    assert state_kept(same_process=True, restarts=0) is True       # e.g. a hot swap without a restart
    assert state_kept(same_process=True, restarts=1) is False      # DevTools restart, Quarkus live reload
    assert state_kept(same_process=False, restarts=None) is False  # stop, rebuild, restart
    assert state_kept(same_process=False, restarts=0) is False
    assert state_kept(same_process=True, restarts=None) is None    # no start line to count


def test_a_broker_restart_wait_as_long_as_the_timeout_is_refused_naming_both_settings():
    with pytest.raises(LabError, match="broker_restart_after_s must be less than devloop.timeout_s"):
        settings.validate(devloop.DevloopSettings, {"timeout_s": 60.0, "broker_restart_after_s": 60.0}, "plan")
    assert devloop.DevloopSettings().broker_restart_after_s < devloop.DevloopSettings().timeout_s


def _estimate(name: str, **changed) -> float:
    return devloop.estimate_for(apps.get(name), devloop.DevloopSettings(**changed), start_s=5.0)


@pytest.mark.parametrize("name", ["quarkus", "spring-boot"])
def test_the_estimate_counts_the_stream_app_and_broker_of_a_framework_that_has_one(name):
    assert _estimate(name, streams=True) > _estimate(name, streams=False)


@pytest.mark.parametrize("name", ["thorntail", "go-reference"])
def test_no_stream_app_no_broker_in_the_estimate(name):
    assert _estimate(name, streams=True) == _estimate(name, streams=False)


def test_the_estimate_counts_the_second_loop_and_each_edit_of_a_round():
    # Quarkus: dev mode and stop-rebuild-restart; Go has one loop, so restart_too changes nothing
    assert _estimate("quarkus", restart_too=True, streams=False) > _estimate("quarkus", restart_too=False, streams=False)
    assert _estimate("go-reference", restart_too=True) == _estimate("go-reference", restart_too=False)
    assert _estimate("thorntail", broken=True) > _estimate("thorntail", broken=False)
    assert _estimate("thorntail", repeats=3) > _estimate("thorntail", repeats=1)
