"""Where a plan runs: on this machine (`local`, the default) or on a Kubernetes cluster.

The `[placement]` table of a plan. On a cluster the lab uses the current kube context (or the one
named here), creates one namespace per run (`<namespace>-<run id>`) and deletes it at the end.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import model_validator

from perflab.settings import Settings, setting

# a namespace is a DNS-1123 label (63 chars); the run id (e.g. 20261123-173000-ab12) is appended
_PREFIX = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
PREFIX_MAX = 63 - len("-20261123-173000-ab12")


class PlacementSettings(Settings):
    kind: Literal["local", "kubernetes"] = setting("local", "local (processes on this machine) or kubernetes")
    context: str = setting("", "kubernetes: the kube context (empty: the current one)")
    namespace: str = setting("perflab", "kubernetes: prefix of the namespace created for each run")
    registry: str = setting("", "kubernetes: registry the app images are in or pushed to (empty: the nodes' own)")
    images: Literal["prebuilt", "tarball", "push"] = setting(
        "prebuilt", "kubernetes: prebuilt (the images are there already), tarball (the lab writes each image to "
        ".perflab/images/ for you to load into the nodes) or push (the lab builds and pushes them to registry)")
    base_image: str = setting("", "kubernetes: base image of Jib's images (Spring) from a registry "
                                  "(empty: a runtime the lab makes from this machine's JDK)")
    postgres_url: str = setting("", "kubernetes: the apps' database (empty: a PostgreSQL StatefulSet in the run's namespace)")
    postgres_image: str = setting("postgres:15", "kubernetes: image of the PostgreSQL StatefulSet")
    timeout_s: float = setting(300.0, "kubernetes: how long a pod may take to become ready", "s", gt=0)
    driver_apart: bool = setting(True, "kubernetes: the load driver's pod on a node apart from every app pod (false: "
                                       "any node, for a one-node cluster; its figures are flagged driver-on-app-node)")

    @model_validator(mode="after")
    def _namespace_is_a_label(self):
        if not _PREFIX.fullmatch(self.namespace) or len(self.namespace) > PREFIX_MAX:
            raise ValueError(f"placement.namespace must be lower-case letters, digits and '-', start and end "
                             f"with a letter or digit, at most {PREFIX_MAX} characters (got {self.namespace!r})")
        if self.images == "push" and not self.registry:
            raise ValueError("placement.images = \"push\" needs placement.registry (where to push the images)")
        if self.postgres_url and not self.postgres_url.startswith(("postgresql://", "postgres://")):
            raise ValueError("placement.postgres_url must be postgresql://USER:PASSWORD@HOST:PORT/DATABASE")
        return self

    @property
    def on_kubernetes(self) -> bool:
        return self.kind == "kubernetes"
