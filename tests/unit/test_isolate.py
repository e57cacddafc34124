"""Isolation without a process or a real cgroup: detection from given mount tables, cgroup v2 files
in a fake tree, CPU topology, refused limits, owner markers (the real cgroups: tests/lab/test_cgroups.py)."""

from __future__ import annotations

import os
import uuid

import pytest

from perflab import isolate
from perflab.isolate import Cgroup, CgroupSetup, Limits, detect_cgroups, plan_topology

MB = 1024 * 1024


@pytest.fixture
def run_id() -> str:
    return f"test-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def cpu_of_test() -> int:
    return max(os.sched_getaffinity(0))


def test_detection_without_cgroup_mounts_says_none(tmp_path):
    mounts = tmp_path / "mounts"
    mounts.write_text("/dev/vda / ext4 rw,relatime 0 0\nproc /proc proc rw 0 0\n")
    setup = detect_cgroups(mounts_file=mounts, proc_cgroup=tmp_path / "absent")
    assert setup.kind == "none" and not setup.usable
    assert "no cgroup filesystem" in setup.reason


def test_cgroup2_whose_controllers_are_bound_elsewhere_is_not_used(tmp_path):
    root = tmp_path / "unified"
    root.mkdir()
    (root / "cgroup.controllers").write_text("pids\n")
    mounts = tmp_path / "mounts"
    mounts.write_text(f"cgroup2 {root} cgroup2 rw 0 0\n")
    setup = detect_cgroups(mounts_file=mounts, proc_cgroup=tmp_path / "absent")
    assert setup.kind == "none"
    assert "cpu, memory not available" in setup.reason


@pytest.fixture
def fake_v2(tmp_path, monkeypatch, run_id):
    """A writable stand-in for a cgroup v2 mount: (its setup, its root, the "app" role's dir)."""
    monkeypatch.setenv("PERFLAB_RUNTIME_DIR", str(tmp_path / "runtime"))
    base = tmp_path / "cgroup2"
    base.mkdir()
    (base / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (base / "cgroup.subtree_control").write_text("")
    mounts = tmp_path / "mounts"
    mounts.write_text(f"cgroup2 {base} cgroup2 rw,nsdelegate 0 0\n")
    setup = detect_cgroups(mounts_file=mounts, proc_cgroup=tmp_path / "absent")
    assert setup.kind == "v2" and setup.v2_base == base
    role_dir = base / "perflab" / run_id / "app"
    role_dir.mkdir(parents=True)  # files the kernel would create, where they are optional
    (role_dir / "memory.swap.max").write_text("max\n")
    (role_dir / "memory.oom.group").write_text("0\n")
    return setup, base, role_dir


def test_v2_limits_are_written_to_the_v2_files(fake_v2, run_id):
    setup, base, role_dir = fake_v2
    cpu = cpu_of_test()

    group = Cgroup(run_id, "app", Limits(cpus=[cpu], cpu_quota=0.5, memory_mb=100), setup=setup)

    assert group.mode == "v2" and group.dirs == [role_dir]
    assert group.enforced["cpu"] and group.enforced["memory"]
    assert set((base / "cgroup.subtree_control").read_text().split()) == {"+cpuset", "+cpu",
                                                                         "+memory"}
    assert (role_dir / "cpu.max").read_text() == "50000 100000"
    assert (role_dir / "cpuset.cpus").read_text() == str(cpu)
    assert (role_dir / "memory.max").read_text() == str(100 * MB)
    assert (role_dir / "memory.swap.max").read_text() == "0"
    assert (role_dir / "memory.oom.group").read_text() == "1"
    (role_dir / "memory.current").write_text("12345\n")
    (role_dir / "memory.peak").write_text("23456\n")
    (role_dir / "memory.events").write_text("low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\n")
    (role_dir / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\nnr_throttled 3\nthrottled_usec 250000\n")
    assert group.memory_current() == 12345 and group.memory_peak() == 23456
    assert group.oom_kills() == 2 and group.cpu_usage_s() == 1.5
    assert group.cpu_throttled_s() == 0.25  # the quota's throttling, beside the run-queue wait
    (role_dir / "memory.stat").write_text("anon 9000\nfile 3000\nactive_file 1000\ninactive_file 2000\n")
    assert group.memory_inactive_file() == 2000  # what docker stats leaves out of memory.current


def test_oom_kills_can_be_limited_to_single_members_on_v2(fake_v2, run_id):
    setup, _, role_dir = fake_v2
    group = Cgroup(run_id, "app", Limits(memory_mb=100), setup=setup)
    assert (role_dir / "memory.oom.group").read_text() == "1"  # whole group, as a container

    assert group.oom_kill_single_members() is True

    assert (role_dir / "memory.oom.group").read_text() == "0"


def test_oom_kills_of_single_members_need_an_oom_group_file(fake_v2, run_id):
    setup, _, role_dir = fake_v2
    (role_dir / "memory.oom.group").unlink()  # a kernel without it
    group = Cgroup(run_id, "app", Limits(memory_mb=100), setup=setup)
    assert group.oom_kill_single_members() is False
    assert not (role_dir / "memory.oom.group").exists()
    unconfined = Cgroup(run_id, "db", setup=CgroupSetup.none("simulated: no rights"))
    assert unconfined.dirs == [] and unconfined.oom_kill_single_members() is False


def test_two_cpus_keep_the_app_alone_and_share_the_other():
    topo = plan_topology(2)
    assert (topo.app, topo.driver, topo.db) == ([0], [1], [1])
    assert topo.app_exclusive
    assert "share CPU 1" in topo.description and "alone" in topo.description


def test_one_cpu_shares_everything_and_flags_it():
    topo = plan_topology(1, app_cpus=2)
    assert topo.app == topo.db == topo.driver == [0]
    assert not topo.app_exclusive and topo.shared and topo.reductions
    assert "not isolated" in topo.description


def test_four_cpus_separate_every_role():
    topo = plan_topology(4)
    assert topo.app == [0]
    assert not set(topo.app) & set(topo.driver) and not set(topo.app) & set(topo.db)
    assert not set(topo.driver) & set(topo.db)
    assert sorted(topo.app + topo.driver + topo.db) == [0, 1, 2, 3]
    assert not topo.shared and not topo.reductions


def test_app_gets_the_requested_count_and_a_reduction_is_recorded():
    assert plan_topology(8, app_cpus=4).app == [0, 1, 2, 3]
    squeezed = plan_topology(4, app_cpus=4)  # the studies' 4 cores on a 4-CPU machine
    assert squeezed.app == [0, 1, 2] and squeezed.driver == [3]
    assert squeezed.reductions and "4 CPUs, got 3" in squeezed.reductions[0]


def test_a_fractional_quota_gets_the_whole_cpus_it_needs():
    assert plan_topology(4, app_cpus=1.5).app == [0, 1]
    assert plan_topology(4, app_cpus=0.5).app == [0]


def test_topology_uses_the_given_cpu_numbers():
    topo = plan_topology(cpus=[2, 5, 7], driver_cpus=1)
    assert (topo.app, topo.driver, topo.db) == ([2], [5], [7])
    with pytest.raises(ValueError):
        plan_topology(2, app_cpus=0)
    with pytest.raises(ValueError):
        plan_topology(cpus=[])


def test_bad_limits_and_names_are_refused_before_anything_is_created():
    with pytest.raises(ValueError, match="memory_mb"):
        Limits(memory_mb=0)
    with pytest.raises(ValueError, match="cpus"):
        Limits(cpus=[])
    with pytest.raises(ValueError, match="cpu_quota"):
        Limits(cpu_quota=-1)
    with pytest.raises(ValueError, match="run id"):
        Cgroup("../escape", "app", setup=CgroupSetup.none("x"))
    with pytest.raises(ValueError, match="not all available"):
        Cgroup("ok", "app", Limits(cpus=[4096]), setup=CgroupSetup.none("x"))


def test_owner_markers_follow_the_runtime_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("PERFLAB_RUNTIME_DIR", str(tmp_path))
    assert isolate.owner_dir() == tmp_path / "cgroup-owners"
