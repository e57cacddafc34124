"""What may run beside what when the suite runs in two workers (tests/lanes.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perflab import apps
from tests import lanes


def test_a_test_that_may_use_the_apps_is_in_the_one_apps_group_whatever_its_tier():
    for path in ("tests/lab/test_kt2020_apps.py", "tests/conformance/test_conformance.py",
                 "tests/kube/test_images.py", "tests/browser/test_report_render.py"):
        assert lanes.group(Path("/ci/clone") / path, standin=False) == lanes.APPS


def test_unit_tests_and_standin_tests_are_grouped_by_their_file():
    unit = lanes.group(Path("/ci/clone/tests/unit/test_plan.py"), standin=False)
    standin = lanes.group(Path("/ci/clone/tests/lab/test_rounds.py"), standin=True)
    assert unit == "tests/unit/test_plan.py" and standin == "tests/lab/test_rounds.py"
    # a clone inside a folder named tests: the tier is read below the last tests/
    assert lanes.group(Path("/home/tests/clone/tests/unit/test_plan.py"), standin=False) == "tests/unit/test_plan.py"
    assert lanes.group(Path("/home/tests/clone/tests/lab/test_soak.py"), standin=False) == lanes.APPS


@pytest.mark.standin
def test_a_standin_test_finds_no_apps_folder():
    assert os.environ["PERFLAB_APPS_DIR"] == lanes.NO_APPS_DIR
    assert not Path(lanes.NO_APPS_DIR).exists()
    assert apps.discover() == {}


def test_an_unmarked_test_keeps_the_apps_folder_it_was_given():
    assert os.environ.get("PERFLAB_APPS_DIR") != lanes.NO_APPS_DIR


def test_the_apps_group_comes_first_with_the_kube_tier_at_its_end_and_ohas_users_after_the_rest():
    files = {  # (file, standin, needs oha)
        "kube": ("tests/kube/test_real_node.py", False, False),
        "byo": ("tests/lab/test_bring_your_own.py", False, True),
        "kt2020": ("tests/lab/test_kt2020_apps.py", False, False),
        "conformance": ("tests/conformance/test_conformance.py", False, False),
        "capacity": ("tests/lab/test_capacity_standin.py", True, True),
        "rounds": ("tests/lab/test_rounds.py", True, False),
        "unit": ("tests/unit/test_plan.py", False, False),
    }
    ranked = sorted(files, key=lambda k: lanes.order(Path("/ci/clone") / files[k][0], *files[k][1:]))
    assert ranked == ["conformance", "kt2020", "byo", "kube", "unit", "rounds", "capacity"]


def test_the_kube_tier_and_the_tests_marked_alone_run_by_themselves():
    assert lanes.alone(Path("/ci/clone/tests/kube/test_real_node.py"), marked=False)
    assert lanes.alone(Path("/ci/clone/tests/lab/test_steady_run.py"), marked=True)
    assert not lanes.alone(Path("/ci/clone/tests/lab/test_rounds.py"), marked=False)
    assert not lanes.alone(Path("/home/kube/clone/tests/unit/test_plan.py"), marked=False)  # tier below tests/ only

