"""Isolation with real processes and real cgroups (skipped, with the reason, where not allowed; failed
under CI=true)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from perflab import isolate, plan
from perflab.isolate import Cgroup, CgroupSetup, Limits, cleanup_stale, detect_cgroups, plan_topology
from tests.conftest import needs, require

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group

MB = 1024 * 1024
REPO = Path(__file__).resolve().parents[2]
SETUP = detect_cgroups()
needs_cgroups = needs(SETUP.usable, f"no usable cgroups: {SETUP.reason}")


@pytest.fixture
def run_id() -> str:
    return f"test-{os.getpid()}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def groups(run_id):
    """Cgroups made by a test; closed whatever happens, then checked gone."""
    made: list[Cgroup] = []
    yield made
    for group in made:
        group.close()
    for lab in SETUP.lab_dirs():
        assert not (lab / run_id).exists(), f"{lab / run_id} left behind"


def spawn(children, code: str, group: Cgroup | None = None) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=group.preexec if group else None)
    children.append(proc)
    return proc


HOLD_MEMORY = """
    import sys, time
    block = b"x" * ({mb} * 1024 * 1024)   # written, so resident
    print("ready", flush=True)
    time.sleep(60)
"""


def cpu_of_test() -> int:
    return max(os.sched_getaffinity(0))


@needs_cgroups
def test_detection_names_the_interface_and_why():
    assert SETUP.kind in ("v1", "v2")
    assert SETUP.reason
    assert SETUP.lab_dirs() and all(d.name == "perflab" for d in SETUP.lab_dirs())


@pytest.fixture
def read_only_tree(tmp_path):
    """cpu and memory 'hierarchies' on a read-only tmpfs: what a container without rights sees."""
    if os.geteuid() != 0:
        require(False, "mounting a read-only tmpfs needs root")
    root = tmp_path / "ro"
    root.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(root)],
                      capture_output=True).returncode != 0:
        require(False, "cannot mount a tmpfs here")
    try:
        for name in ("cpu", "memory"):
            (root / name).mkdir()
        subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True)
        mounts = tmp_path / "mounts"
        mounts.write_text(f"cgroup {root}/cpu cgroup rw,cpu 0 0\n"
                          f"cgroup {root}/memory cgroup rw,memory 0 0\n")
        yield root, mounts
    finally:
        subprocess.run(["umount", str(root)], check=True)


def test_read_only_cgroups_are_detected_as_unusable(read_only_tree, tmp_path):
    _, mounts = read_only_tree
    setup = detect_cgroups(mounts_file=mounts, proc_cgroup=tmp_path / "absent")
    assert setup.kind == "none"
    assert "read-only" in setup.reason


def test_failed_creation_falls_back_to_affinity_and_says_so(read_only_tree, run_id, children,
                                                             groups):
    root, _ = read_only_tree
    pretend_v1 = CgroupSetup(kind="v1", reason="pretend",
                             v1_mounts={"cpu": root / "cpu", "memory": root / "memory"})
    cpu = cpu_of_test()
    group = Cgroup(run_id, "app", Limits(cpus=[cpu], memory_mb=64), setup=pretend_v1)
    groups.append(group)
    assert group.mode == "affinity-only"
    assert group.enforced["cpu"] is False and group.enforced["memory"] is False
    assert "Read-only" in group.enforced["reason"]
    proc = spawn(children, "import os; print(sorted(os.sched_getaffinity(0)))", group)
    assert proc.stdout.readline().strip() == f"[{cpu}]"


def test_without_rights_limits_are_recorded_as_not_enforced(run_id, children, groups):
    cpu = cpu_of_test()
    group = Cgroup(run_id, "app", Limits(cpus=[cpu], cpu_quota=1.0, memory_mb=256),
                   setup=CgroupSetup.none("simulated: no rights"))
    groups.append(group)
    assert group.enforced == {"cpu": False, "memory": False, "reason": group.enforced["reason"]}
    assert "simulated: no rights" in group.enforced["reason"]
    assert group.describe()["mode"] == "affinity-only"
    proc = spawn(children, "import os, time; print(sorted(os.sched_getaffinity(0)), flush=True); "
                           "time.sleep(30)", group)
    assert proc.stdout.readline().strip() == f"[{cpu}]"
    # Nothing measured by a cgroup: say "unknown", never zero.
    assert group.memory_current() is None and group.memory_peak() is None
    assert group.oom_kills() is None and group.cpu_usage_s() is None
    assert group.pids() == []


def limit_files(group: Cgroup) -> dict[str, int]:
    found = {}
    for directory in group.dirs:
        for name in ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.max",
                     "memory.swap.max"):
            if (directory / name).exists():
                found[name] = int((directory / name).read_text().split()[0])
    return found


@needs_cgroups
def test_child_runs_inside_the_group_and_its_memory_is_read(run_id, children, groups):
    cpu = cpu_of_test()
    group = Cgroup(run_id, "app", Limits(cpus=[cpu], memory_mb=256), setup=SETUP)
    groups.append(group)
    assert group.mode == SETUP.kind
    assert group.enforced["cpu"] and group.enforced["memory"], group.enforced
    limits = limit_files(group)
    assert limits.get("memory.limit_in_bytes", limits.get("memory.max")) == 256 * MB
    if "memory.memsw.limit_in_bytes" in limits:
        assert limits["memory.memsw.limit_in_bytes"] == 256 * MB  # no swap on top
    if "memory.swap.max" in limits:
        assert limits["memory.swap.max"] == 0

    proc = spawn(children, HOLD_MEMORY.format(mb=64), group)
    assert proc.stdout.readline().strip() == "ready"
    assert proc.pid in group.pids()
    assert f":/perflab/{run_id}/app" in Path(f"/proc/{proc.pid}/cgroup").read_text()
    assert os.sched_getaffinity(proc.pid) == {cpu}
    current = group.memory_current()
    assert 64 * MB <= current <= 256 * MB
    peak = group.memory_peak()
    if peak is not None:
        assert peak >= current
    assert group.oom_kills() == 0
    assert group.cpu_usage_s() > 0


@needs_cgroups
def test_oom_kill_under_a_small_limit_is_reported_as_oom(run_id, children, groups):
    group = Cgroup(run_id, "app", Limits(memory_mb=48), setup=SETUP)
    groups.append(group)
    proc = spawn(children, """
        chunks = []
        for _ in range(40):
            chunks.append(b"x" * (8 * 1024 * 1024))
        print("survived", flush=True)
    """, group)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL and "survived" not in out
    assert group.oom_kills() >= 1
    peak = group.memory_peak()
    if peak is not None:
        assert peak <= 48 * MB


@needs_cgroups
def test_cpu_quota_throttles_a_busy_child(run_id, children, groups):
    group = Cgroup(run_id, "app", Limits(cpus=[cpu_of_test()], cpu_quota=0.3), setup=SETUP)
    groups.append(group)
    proc = spawn(children, """
        import time
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            pass
        print(time.process_time(), flush=True)
    """, group)
    used = float(proc.communicate(timeout=30)[0])
    # One second of wall time at 0.3 of a core (plus start-up and one 100 ms period of slack).
    assert used < 0.6, f"used {used:.2f} CPU s in 1 s under a 0.3-core quota"
    assert group.cpu_usage_s() >= used * 0.9


@needs_cgroups
def test_kill_all_reaches_descendants_that_left_the_process_group(run_id, children, groups):
    group = Cgroup(run_id, "app", Limits(memory_mb=256), setup=SETUP)
    proc = spawn(children, """
        import subprocess, sys, time
        kids = [subprocess.Popen(["sleep", "60"], start_new_session=True) for _ in range(3)]
        print(" ".join(str(k.pid) for k in kids), flush=True)
        time.sleep(60)
    """, group)
    kids = [int(p) for p in proc.stdout.readline().split()]
    assert set(kids) | {proc.pid} <= set(group.pids())
    dirs = list(group.dirs)
    group.close()
    assert proc.wait(timeout=5) == -signal.SIGKILL
    for pid in kids:  # orphans now; gone once init reaps them
        deadline = time.monotonic() + 5
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text()
    assert dirs and not any(d.exists() for d in dirs)
    assert not any((lab / run_id).exists() for lab in SETUP.lab_dirs())


@needs_cgroups
def test_context_manager_cleans_up_when_the_body_fails(run_id, children, groups):
    with pytest.raises(RuntimeError, match="boom"):
        with Cgroup(run_id, "app", Limits(memory_mb=128), setup=SETUP) as group:
            proc = spawn(children, "import time; print('up', flush=True); time.sleep(60)", group)
            proc.stdout.readline()
            raise RuntimeError("boom")
    assert proc.wait(timeout=5) == -signal.SIGKILL
    assert not any(d.exists() for d in group.dirs)
    assert not any((lab / run_id).exists() for lab in SETUP.lab_dirs())


@needs_cgroups
def test_a_group_in_use_is_not_taken_over(run_id, children, groups):
    first = Cgroup(run_id, "app", Limits(), setup=SETUP)
    groups.append(first)
    proc = spawn(children, "import time; print('up', flush=True); time.sleep(60)", first)
    proc.stdout.readline()
    with pytest.raises(isolate.CgroupError, match="already holds processes"):
        Cgroup(run_id, "app", Limits(), setup=SETUP)
    assert proc.poll() is None and proc.pid in first.pids()


@needs_cgroups
def test_two_roles_of_one_run_share_the_run_group(run_id, groups):
    app = Cgroup(run_id, "app", Limits(), setup=SETUP)
    db = Cgroup(run_id, "db", Limits(), setup=SETUP)
    groups.extend([app, db])
    app.close()
    assert all((lab / run_id / "db").is_dir() for lab in SETUP.lab_dirs())
    db.close()
    assert not any((lab / run_id).exists() for lab in SETUP.lab_dirs())


@needs_cgroups
def test_cleanup_stale_removes_crashed_runs_and_spares_live_ones(run_id, children, groups):
    stale_id = f"{run_id}-crashed"
    leftover = None
    try:
        crashed = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
            import os, subprocess
            from perflab.isolate import Cgroup, Limits
            group = Cgroup({stale_id!r}, "app", Limits(memory_mb=64))
            kid = subprocess.Popen(["sleep", "60"], start_new_session=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   preexec_fn=group.preexec)
            print(kid.pid, flush=True)
            os._exit(0)   # a crash: nothing cleaned up
        """)], capture_output=True, text=True, cwd=REPO, timeout=30)
        assert crashed.returncode == 0, crashed.stderr
        leftover = int(crashed.stdout)
        assert all((lab / stale_id / "app").is_dir() for lab in SETUP.lab_dirs())
        live = Cgroup(run_id, "app", Limits(), setup=SETUP)
        groups.append(live)

        removed = cleanup_stale(SETUP)

        assert stale_id in removed and run_id not in removed
        assert not any((lab / stale_id).exists() for lab in SETUP.lab_dirs())
        assert all(d.is_dir() for d in live.dirs)
        deadline = time.monotonic() + 5
        while Path(f"/proc/{leftover}").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not Path(f"/proc/{leftover}").exists()
    finally:
        if leftover is not None:
            try:
                os.kill(leftover, signal.SIGKILL)
            except ProcessLookupError:
                pass
        cleanup_stale(SETUP)


@needs_cgroups
def test_half_a_cpu_from_the_plan_is_written_as_a_cfs_quota_on_one_cpu(run_id, groups):
    limits = plan.validate({"name": "t", "limits": {"cpus": 0.5}}).data["limits"]
    topology = plan_topology(app_cpus=limits["cpus"])
    group = Cgroup(run_id, "app", Limits(cpus=topology.app, cpu_quota=float(limits["cpus"])), setup=SETUP)
    groups.append(group)
    files = ("cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.max", "cpuset.cpus")
    written = {name: (d / name).read_text().split() for d in group.dirs for name in files if (d / name).exists()}
    if SETUP.kind == "v2":
        assert written["cpu.max"] == ["50000", "100000"]
    else:
        assert (written["cpu.cfs_quota_us"], written["cpu.cfs_period_us"]) == (["50000"], ["100000"])
    assert len(topology.app) == 1
    if "cpuset.cpus" in written:
        assert written["cpuset.cpus"] == [str(topology.app[0])]
    assert group.enforced["cpu"], group.enforced


THREADS_HOLD = """
    import threading, time
    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
    print("ready", flush=True)
    time.sleep(60)
"""


@needs_cgroups
def test_a_running_group_moves_to_every_cpu_and_back_with_every_thread(run_id, children, groups):
    # a warm-up's boost: the app on all CPUs with their quota, then its own one CPU again
    every = sorted(os.sched_getaffinity(0))
    own = [every[0]]
    group = Cgroup(run_id, "app", Limits(cpus=own, cpu_quota=1.0), setup=SETUP)
    groups.append(group)
    proc = spawn(children, THREADS_HOLD, group)
    assert proc.stdout.readline().strip() == "ready"
    tasks = [int(t) for t in os.listdir(f"/proc/{proc.pid}/task")]
    assert len(tasks) >= 2 and all(os.sched_getaffinity(t) == set(own) for t in tasks)

    def written() -> dict[str, list[str]]:
        files = ("cpu.cfs_quota_us", "cpu.max", "cpuset.cpus")
        return {n: (d / n).read_text().split() for d in group.dirs for n in files if (d / n).exists()}

    assert group.move_cpus(every, float(len(every))) == len(tasks)
    assert all(os.sched_getaffinity(t) == set(every) for t in tasks)
    if "cpu.max" in written():
        assert written()["cpu.max"][0] == str(100_000 * len(every))
    if "cpu.cfs_quota_us" in written():
        assert written()["cpu.cfs_quota_us"] == [str(100_000 * len(every))]

    assert group.move_cpus(group.cpus, group.limits.cpu_quota) == len(tasks)
    assert all(os.sched_getaffinity(t) == set(own) for t in tasks)
    after = written()
    if "cpuset.cpus" in after:
        assert after["cpuset.cpus"] == [str(own[0])]
    assert after.get("cpu.max", after.get("cpu.cfs_quota_us"))[0] == "100000"
