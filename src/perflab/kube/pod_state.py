"""What a pod's status says about it, in the lab's words: ready, unschedulable, OOM-killed, without
its image, failed, or still waiting (perflab.kube.pod_instance polls it; the run's database pod and
the driver pod are watched until they settle)."""

from __future__ import annotations

from typing import Any

from perflab.errors import LabError


def _condition(pod, kind: str):
    return next((c for c in (pod.status.conditions or []) if c.type == kind), None) if pod.status else None


def _oom_killed(pod) -> bool:
    for status in (pod.status.container_statuses or []) if pod.status else []:
        state = status.state.terminated if status.state else None
        last = status.last_state.terminated if status.last_state else None
        if any(t is not None and t.reason == "OOMKilled" for t in (state, last)):
            return True
    return False


# the kubelet's reasons for a container that cannot get its image: waiting longer never helps
IMAGE_UNAVAILABLE = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull")
IMAGE_STATE = "without its image"


def _waiting(pod) -> list[tuple[str, Any]]:
    if not pod.status:
        return []
    statuses = [*(pod.status.init_container_statuses or []), *(pod.status.container_statuses or [])]
    return [(s.image, s.state.waiting) for s in statuses if s.state and s.state.waiting]


def image_problem(pod) -> str:
    """Why the pod's image cannot be had, in the kubelet's words ('' when it can)."""
    for image, waiting in _waiting(pod):
        if waiting.reason in IMAGE_UNAVAILABLE:
            return f"image {image}: {waiting.reason}" + (f" ({waiting.message})" if waiting.message else "")
    return ""


def pod_state(pod) -> str:
    """ready | unschedulable | oomkilled | without its image | failed | waiting"""
    ready, scheduled = _condition(pod, "Ready"), _condition(pod, "PodScheduled")
    if _oom_killed(pod):
        return "oomkilled"
    if image_problem(pod):
        return IMAGE_STATE
    if ready is not None and ready.status == "True":
        return "ready"
    if scheduled is not None and scheduled.status == "False" and scheduled.reason == "Unschedulable":
        return "unschedulable"
    if pod.status and pod.status.phase == "Failed":
        return "failed"
    return "waiting"


def not_ready(pod, state: str, what: str) -> LabError:
    """The error for a pod that settled without becoming ready; a missing image says how to provide it."""
    if state != IMAGE_STATE:
        return LabError(f"{what}: pod {pod.metadata.name} {state} instead of ready")
    return LabError(f"{what}: pod {pod.metadata.name} cannot start: {image_problem(pod)}",
                    fix="make the image available to the nodes: push it to placement.registry "
                        "(placement.images = \"push\"), or load the tarball the lab writes (placement.images = "
                        "\"tarball\") into every node: ctr -n k8s.io images import FILE, or kind load image-archive FILE")


def settled(pod):
    """(pod, state) once the pod has settled one way or the other, None while it waits."""
    state = pod_state(pod)
    return (pod, state) if state != "waiting" else None

