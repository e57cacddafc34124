"""Before a run creates anything: whether real nodes hold the image tarballs the lab wrote."""

from __future__ import annotations

from pathlib import Path

from kubernetes.client import V1ContainerImage, V1Node, V1NodeStatus, V1ObjectMeta

from perflab.kube import prepare

REF = "perflab-quarkus-jvm:0123456789ab-jdk17.0.15"


def _node(name: str, *images: list[str]) -> V1Node:
    return V1Node(metadata=V1ObjectMeta(name=name),
                  status=V1NodeStatus(images=[V1ContainerImage(names=names) for names in images]))


def _wanted() -> prepare.Images:
    return prepare.Images(refs={"quarkus/jvm": REF}, tarballs={"quarkus/jvm": Path("/w/images/q.tar")},
                          pull_policy="Never")


def test_a_node_without_a_loaded_image_is_named():
    loaded = _node("a", [f"docker.io/library/{REF}", "sha256:abc"])  # as containerd names an imported tarball
    assert prepare.missing_on_nodes([loaded, _node("b", ["docker.io/library/postgres:15"])], _wanted()) == [f"{REF} on b"]


def test_a_node_listing_the_kubelets_maximum_may_hold_more_and_is_trusted():
    full = _node("a", *[[f"docker.io/library/other-{i}:1"] for i in range(50)])
    assert prepare.missing_on_nodes([full], _wanted()) == []


def test_pushed_images_are_not_looked_for_on_the_nodes():
    pushed = prepare.Images(refs={"quarkus/jvm": f"reg:5000/{REF}"})
    assert prepare.missing_on_nodes([_node("a")], pushed) == []


def test_the_fix_names_the_files_and_the_commands():
    text = prepare.load_instructions(_wanted())
    assert "/w/images/q.tar" in text and "ctr -n k8s.io images import" in text and "kind load image-archive" in text


def test_cold_starts_reference_that_is_also_a_planned_app_is_one_image_named_once():
    wanted = _wanted()
    wanted.refs[prepare.REFERENCE], wanted.tarballs[prepare.REFERENCE] = REF, wanted.tarballs["quarkus/jvm"]
    assert prepare.missing_on_nodes([_node("b")], wanted) == [f"{REF} on b"]
    assert prepare.load_instructions(wanted).count("/w/images/q.tar") == 1
