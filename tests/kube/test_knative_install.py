"""Knative Serving's own manifests (from its Go module) as the test env installs them on the real
node: every image is one the lab builds, and the changes the module docstring lists are made."""

from __future__ import annotations

import json

import pytest

from tools.kubeenv import build, knative


@pytest.fixture(scope="module")
def docs():
    try:
        return knative.rendered(knative.sources())
    except build.BuildFailed as exc:
        pytest.fail(f"Knative's module could not be downloaded: {exc}")


def test_every_image_is_one_the_lab_builds_and_no_ko_reference_is_left(docs):
    assert "ko://" not in json.dumps(docs)
    built = {knative.image(c) for c in knative.COMMANDS}
    deployments = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"}
    assert set(deployments) == {"controller", "webhook", "autoscaler", "activator"}
    for deployment in deployments.values():
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            assert container["image"] in built, container["image"]
            assert container["securityContext"]["runAsUser"] == int(knative.USER)
            assert container["resources"]["requests"]["cpu"] == knative.CPU_REQUEST
    [config] = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "config-deployment"]
    assert config["data"]["queue-sidecar-image"] == knative.image("queue")
    assert "docker.io" in config["data"]["registries-skipping-tag-resolving"].split(",")


def test_the_crds_knatives_controllers_watch_come_first_and_no_cert_manager_object_is_made(docs):
    kinds = [d["kind"] for d in docs]
    crds = {d["spec"]["names"]["kind"] for d in docs if d["kind"] == "CustomResourceDefinition"}
    # Serving's own, and the networking and caching kinds its controller creates per revision
    assert {"Service", "Revision", "PodAutoscaler", "ServerlessService", "Ingress", "Image"} <= crds
    assert kinds.index("CustomResourceDefinition") < kinds.index("Deployment")
    assert "Certificate" not in kinds
