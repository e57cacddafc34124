"""A run on a Kubernetes cluster (perflab.kube): the cluster, the images and a dry run of the run's
objects before it; its namespace, database, driver pod and placement while it lasts. Nothing is
built here: the images are (docs/kubernetes.md)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from perflab import environment
from perflab.kube import site as kube_site
from perflab.settings import Plan
from perflab.sites.base import Grounds, Ready, Say

if TYPE_CHECKING:
    from perflab.resume import Resumed
    from perflab.targets import Target


class ClusterSite:
    resumable = False  # a run on a cluster starts again: its pods and namespace are gone with it

    def __init__(self) -> None:
        self.prep: kube_site.Prepared | None = None

    def prepare(self, plan: Plan, targets: list["Target"], say: Say, apps_root: Path | None,
                resumed: "Resumed | None") -> Ready:
        self.prep = prep = kube_site.prepare_run(plan, targets, say, apps_root)
        env = environment.capture(frameworks={t.app.name: f"{t.app.framework} {t.app.framework_version}"
                                              for t in targets})
        env["placement"], env["topology"] = prep.environment, prep.topology.as_dict()
        where = (f" on kube context {env['placement']['context']} ({env['placement']['version']}, "
                 f"{len(env['placement']['nodes'])} node(s))")
        return Ready(env, prep.topology, kube_site.recorded_plan(plan.data), where)

    @contextlib.contextmanager
    def grounds(self, plan: Plan, run_id: str, ready: Ready, targets: list["Target"], say: Say) -> Iterator[Grounds]:
        assert self.prep is not None, "prepare() comes first"
        with kube_site.grounds(self.prep, plan, run_id, say) as held:
            yield Grounds(held.db, placement=held.placement)
