"""Container-like limits without a container engine.

Each role of a run (app, db, driver) gets its own cgroup, "perflab/<run-id>/<role>", on cgroup v2
or in each cgroup v1 hierarchy (cpu, cpuacct, cpuset, memory), with a cpuset, a CPU quota and a
memory limit (swap disabled). Without the rights to create cgroups the lab falls back to CPU
affinity and says so in `Cgroup.enforced`; it never pretends a limit held when it did not.

`plan_topology` decides which CPUs the app, the DB and the load driver get.

- `detection`: which cgroup interface is usable here, and why
- `cgroup`: one role's cgroup and its limits
- `stale`: owner tracking and the removal of crashed runs' groups
- `topology`: which CPUs each role gets
"""

from ._common import CgroupError
from .cgroup import Cgroup, Limits
from .detection import CgroupSetup, detect, detect_cgroups
from .stale import cleanup_stale, owner_dir
# The lab tests empty and remove the groups they leave behind with these steps directly.
from .stale import _groups_below, _kill_group, _rmdir_retry  # noqa: F401
from .topology import Topology, plan_topology

__all__ = [
    "Cgroup", "CgroupError", "CgroupSetup", "Limits", "Topology", "cleanup_stale", "detect",
    "detect_cgroups", "owner_dir", "plan_topology",
]
