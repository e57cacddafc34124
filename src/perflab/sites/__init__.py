"""Where a run takes place: this machine or a Kubernetes cluster, behind one interface, so the
runner has a single path (perflab.runner).

A site first gets ready (`prepare`: checks, tools, builds or images, the run's environment as it
will be stored) before the run exists in the store, so a refused run leaves nothing behind; then it
holds the run's grounds while the run measures (`grounds`: the database, the H2 server where an app
uses one, the placement instances and load go through), and releases all of it on leaving, also on
Ctrl-C or a crash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from perflab.errors import LabError
from perflab.placements import KUBERNETES
from perflab.settings import Plan
from perflab.sites.base import Grounds, Ready, Site
from perflab.sites.local import LocalSite

if TYPE_CHECKING:
    from perflab.resume import Resumed

__all__ = ["Grounds", "Ready", "Site", "LocalSite", "open_site"]


def open_site(plan: Plan, resumed: "Resumed | None" = None) -> Site:
    """The site of the plan's placement."""
    if plan["placement"]["kind"] == KUBERNETES:
        from perflab.sites.cluster import ClusterSite  # loads the kubernetes client: only for a run on a cluster

        site: Site = ClusterSite()
    else:
        site = LocalSite()
    if resumed is not None and not site.resumable:
        raise LabError("--resume goes on with runs on this machine only; a run on a cluster starts again",
                       fix=f"./perflab run {plan.source}")
    return site
