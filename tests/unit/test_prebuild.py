"""Which one-time builds a test session starts in the background, from the tiers it collected."""

from pathlib import Path

from tests import prebuild

ROOT = Path("/checkout")


def test_a_unit_only_session_builds_nothing():
    assert prebuild.wanted([ROOT / "tests/unit/test_plan.py", ROOT / "tests/unit/test_stats.py"]) == []


def test_a_lab_test_wants_oha_and_not_the_cluster():
    assert prebuild.wanted([ROOT / "tests/unit/test_plan.py", ROOT / "tests/lab/test_drivers_oha.py"]) == ["oha"]


def test_the_kube_tier_wants_both_in_the_order_they_are_needed():
    assert prebuild.wanted([ROOT / "tests/kube/test_real_node.py"]) == ["oha", "kube"]


def test_the_tier_is_the_folder_below_the_last_tests_folder():
    # a checkout that itself sits under a folder called tests/
    assert prebuild.wanted([Path("/home/tests/perflab/tests/unit/test_plan.py")]) == []
    assert prebuild.wanted([Path("/home/tests/perflab/tests/kube/test_images.py")]) == ["oha", "kube"]


def test_tier_folders_as_given_on_the_command_line_count_like_their_tests():
    # in two workers the controller starts the builds from its arguments (pytest's testpaths), not its items
    assert prebuild.wanted([Path("tests/unit")]) == []
    assert prebuild.wanted([Path("tests/unit"), Path("tests/lab"), Path("tests/conformance")]) == ["oha"]
    assert prebuild.wanted([Path("tests/unit"), Path("tests/kube")]) == ["oha", "kube"]


def test_turned_off_it_starts_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv(prebuild.OFF, "0")
    assert prebuild.start(["oha", "kube"], tmp_path / "prebuild.log") == []
    assert not (tmp_path / "prebuild.log").exists()
