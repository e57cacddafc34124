"""How the lab reads a pod's state from the API's own status objects (the client's models): a
pod that cannot get its image is recognised at once, not waited on until the timeout."""

from __future__ import annotations

import pytest
from kubernetes.client import (V1ContainerState, V1ContainerStateRunning, V1ContainerStateTerminated,
                               V1ContainerStateWaiting, V1ContainerStatus, V1ObjectMeta, V1Pod, V1PodCondition,
                               V1PodStatus)

from perflab.kube import pod_state

IMAGE = "registry.example/perflab-quarkus-jvm:0123456789ab-jdk17.0.15"


def _status(waiting: str = "", message: str = "", running: bool = False, terminated: str = "",
            image: str = IMAGE) -> V1ContainerStatus:
    state = V1ContainerState(
        waiting=V1ContainerStateWaiting(reason=waiting, message=message or None) if waiting else None,
        running=V1ContainerStateRunning() if running else None,
        terminated=V1ContainerStateTerminated(exit_code=137, reason=terminated) if terminated else None)
    return V1ContainerStatus(name="app", image=image, image_id="", ready=running, restart_count=0, state=state)


def _pod(*statuses, init=(), phase="Pending", ready="False") -> V1Pod:
    return V1Pod(metadata=V1ObjectMeta(name="quarkus-jvm-7d9f-x2"), status=V1PodStatus(
        phase=phase, container_statuses=list(statuses), init_container_statuses=list(init),
        conditions=[V1PodCondition(type="PodScheduled", status="True"), V1PodCondition(type="Ready", status=ready)]))


@pytest.mark.parametrize("reason", ["ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"])
def test_a_pod_without_its_image_is_settled(reason):
    pod = _pod(_status(waiting=reason, message="pull access denied"))
    assert pod_state.pod_state(pod) == pod_state.IMAGE_STATE
    assert pod_state.settled(pod) == (pod, pod_state.IMAGE_STATE)
    assert pod_state.image_problem(pod) == f"image {IMAGE}: {reason} (pull access denied)"


def test_an_init_containers_image_counts_too():
    pod = _pod(_status(waiting="PodInitializing"), init=[_status(waiting="ImagePullBackOff", image="busybox:1")])
    assert pod_state.pod_state(pod) == pod_state.IMAGE_STATE and "busybox:1" in pod_state.image_problem(pod)


@pytest.mark.parametrize("pod, state", [
    (_pod(_status(waiting="ContainerCreating")), "waiting"),  # still pulling or starting: wait
    (_pod(), "waiting"),
    (_pod(_status(running=True), phase="Running", ready="True"), "ready"),
    (_pod(_status(terminated="OOMKilled"), phase="Failed"), "oomkilled"),
])
def test_other_states_are_unchanged(pod, state):
    assert pod_state.pod_state(pod) == state and pod_state.image_problem(pod) == ""


def test_the_error_names_the_image_and_how_to_provide_it():
    err = pod_state.not_ready(_pod(_status(waiting="ErrImagePull", message="not found")), pod_state.IMAGE_STATE,
                            "quarkus/jvm")
    assert IMAGE in err.message and "ErrImagePull" in err.message
    assert "placement.registry" in err.fix and "ctr -n k8s.io images import" in err.fix
    assert pod_state.not_ready(_pod(), "unschedulable", "quarkus/jvm").fix is None  # no image advice there
