"""What a run on a cluster settles before it creates anything: each app/mode's image (made
first when the plan asks for it), and a server-side dry run of every object it will create, so
a manifest the API server refuses stops the run with the server's own words and nothing left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from perflab import apps
from perflab.errors import LabError
from perflab.kube import driver_image, images as kube_images, manifests, oci
from perflab.kube.objects import Objects
from perflab.scenarios.coldstart import reference_mode
from perflab.settings import Plan
from perflab.targets import Target

Say = Callable[[str], None]
# the namespace the dry run renders into: it exists on every cluster (the run's own does not yet)
DRY_RUN_NAMESPACE = "default"
DRY_RUN_ID = "dry-run"


@dataclass
class Images:
    """Each app/mode's image on the cluster (by target label), and how the nodes get it."""

    refs: dict[str, str] = field(default_factory=dict)
    tarballs: dict[str, Path] = field(default_factory=dict)
    pull_policy: str = "IfNotPresent"


def images(plan: Plan, targets: list, say: Say) -> Images:
    """The image of every target the run measures; made now when placement.images says so. A
    mode without an image recipe becomes unavailable on the cluster, with the reason."""
    placement, jdk = plan.model.placement, plan["limits"]["jdk"] or None
    # a loaded tarball is in the node's store and nowhere else: never try to pull it
    out = Images(pull_policy="Never" if placement.images == "tarball" else "IfNotPresent")
    for target in targets:
        if target.unavailable:
            continue
        try:
            _provide(out, target.label, placement.images,  # both called at once, in this iteration
                     lambda: kube_images.reference(target.app, target.mode, placement.registry, jdk),
                     lambda: kube_images.build(target.app, target.mode, images=placement.images,
                                               registry=placement.registry, base_image=placement.base_image,
                                               jdk_override=jdk, log=say))
        except kube_images.NoImage as exc:
            target.unavailable = f"unavailable: on kubernetes: {exc.message}"
    if placement.images == "prebuilt" and out.refs:
        say("images the nodes must have (placement.images = \"prebuilt\"): " + ", ".join(sorted(out.refs.values())))
    return out


REFERENCE = "coldstart-reference"  # the label of cold start's reference image among a run's images


def reference(out: Images, plan: Plan, apps_root: Path | None, say: Say):
    """Cold start's reference app/mode (the Go reference) as a target, its image provided as the
    apps' are; or why it cannot be (a str)."""
    name = plan.settings("coldstart").reference
    try:
        app = apps.with_dirs(apps.discover(apps_root), plan["app_dirs"])[0][name]
    except KeyError:
        return f"on kubernetes: cold start's reference app {name!r} is not known"
    target = Target(app, reference_mode(app))
    if target.label in out.refs:  # also one of the plan's apps: the same image
        out.refs[REFERENCE] = out.refs[target.label]
        if target.label in out.tarballs:
            out.tarballs[REFERENCE] = out.tarballs[target.label]
        return target
    placement = plan.model.placement
    try:
        _provide(out, REFERENCE, placement.images,
                 lambda: kube_images.reference(app, target.mode, placement.registry),
                 lambda: kube_images.build(app, target.mode, images=placement.images, registry=placement.registry,
                                           base_image=placement.base_image, log=say))
    except kube_images.NoImage as exc:
        return f"on kubernetes: cold start's reference {target.label} has no image: {exc.message}"
    return target


def driver(out: Images, placement, say: Say) -> None:
    """The load driver's image, provided as the apps' are (placement.images)."""
    _provide(out, driver_image.LABEL, placement.images, lambda: driver_image.reference(placement.registry),
             lambda: driver_image.build(placement.images, placement.registry, log=say))
    if placement.images == "prebuilt":
        say(f"the load driver's image the nodes must have: {out.refs[driver_image.LABEL]}")


def _provide(out: Images, label: str, how: str, reference: Callable[[], str],
             build: Callable[[], kube_images.Built]) -> None:
    if how == "prebuilt":
        out.refs[label] = reference()
        return
    built = build()
    out.refs[label] = built.image
    if built.tarball is not None:
        out.tarballs[label] = built.tarball


def missing_on_nodes(nodes: list, wanted: Images) -> list[str]:
    """Tarball images some real node does not report (node.status.images): load them first.
    A node that reports the kubelet's maximum of 50 images may hold more than it lists: trusted."""
    missing = []
    for node in nodes:
        listed = node.status.images or []
        if len(listed) >= 50:
            continue
        names = {n for image in listed for n in image.names or []}
        missing += [f"{ref} on {node.metadata.name}" for label, ref in wanted.refs.items()
                    if label in wanted.tarballs and oci.full_name(ref) not in names and ref not in names]
    return list(dict.fromkeys(missing))  # cold start's reference may be one of the apps


def load_instructions(wanted: Images) -> str:
    files = " ".join(dict.fromkeys(str(p) for p in wanted.tarballs.values()))
    return (f"load the images into every node, then run again: on each node `ctr -n k8s.io images import FILE` "
            f"(a kind cluster: `kind load image-archive FILE`) for FILE in {files}")


def dry_run(objs: Objects, bodies: list[manifests.Manifest]) -> None:
    """The API server validates each object (schemas, admission) without storing it; any refusal
    stops the run before it creates anything."""
    problems = objs.dry_run(bodies, DRY_RUN_NAMESPACE)
    if problems:
        raise LabError("the API server refused the run's objects in a dry run (nothing was created): "
                       + "; ".join(problems),
                       fix="correct the plan setting or app descriptor the object comes from")
