"""App images made without a container engine: the tarball format the lab writes and checks,
image names that follow the build, and real images of the apps (Go, Quarkus through the lab's
layering, Spring Boot through Jib) opened and checked file by file; where containerd can run
here, imported into it and started."""

from __future__ import annotations

import io
import shutil
import stat
import tarfile
from pathlib import Path

import pytest

from perflab import apps
from perflab.errors import LabError
from perflab.kube import base, images, oci

REPO = Path(__file__).resolve().parents[2]


def _image(tmp_path, name="perflab-x:1", files=None):
    files = files or [oci.Entry("/app/run", data=b"#!/bin/sh\necho hi\n", mode=0o755),
                      oci.Entry("/app/link", link="run")]
    layer = oci.write_layer(files, tmp_path)
    return oci.write_image(tmp_path / "x.tar", name, [layer], oci.ImageConfig(entrypoint=["/app/run"], env={"A": "1"}))


def test_an_image_tarball_reads_back_as_written(tmp_path):
    img = oci.inspect(_image(tmp_path))
    assert img.entrypoint == ["/app/run"] and img.env == {"A": "1"}
    assert "docker.io/library/perflab-x:1" in img.names  # the name containerd and the kubelet use
    files = img.files()
    assert stat.S_IMODE(files["/app/run"].mode) == 0o755 and files["/app/link"].issym()
    assert files["/app"].isdir()  # parent folders are in the layer


def test_layers_are_reproducible(tmp_path):
    entries = [oci.Entry("/a", data=b"x"), oci.Entry("/b/c", data=b"y", mode=0o600)]
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    assert oci.write_layer(entries, tmp_path / "1").digest == oci.write_layer(entries[::-1], tmp_path / "2").digest


def test_a_damaged_tarball_is_refused(tmp_path):
    path = _image(tmp_path)
    with tarfile.open(path) as tar:
        members = [(m, tar.extractfile(m).read() if m.isfile() else None) for m in tar.getmembers()]
    damaged = tmp_path / "damaged.tar"
    with tarfile.open(damaged, "w") as out:
        for member, data in members:
            if member.name.startswith("blobs/") and data[:2] == b"\x1f\x8b":  # the layer: one byte changed
                data = data[:-9] + bytes([data[-9] ^ 1]) + data[-8:]
            out.addfile(member, io.BytesIO(data) if data is not None else None)
    with pytest.raises(oci.BadImage):
        oci.inspect(damaged)


@pytest.mark.parametrize("reference, full", [("app:1", "docker.io/library/app:1"), ("me/app:1", "docker.io/me/app:1"),
                                             ("reg:5000/app:1", "reg:5000/app:1"), ("localhost/app:1", "localhost/app:1")])
def test_short_names_are_completed_as_runtimes_do(reference, full):
    assert oci.full_name(reference) == full


def test_a_tag_follows_the_build_an_edit_changes_it(tmp_path):
    shutil.copytree(REPO / "apps" / "go-reference", tmp_path / "go-reference", ignore=shutil.ignore_patterns("go-reference"))
    app = apps.discover(tmp_path)["go-reference"]
    first = images.tag(app, "native")
    assert first == images.tag(app, "native") and len(first) == 12
    (tmp_path / "go-reference" / "main.go").write_text((tmp_path / "go-reference" / "main.go").read_text() + "\n// edit\n")
    assert images.tag(app, "native") != first


def test_a_jvm_modes_tag_names_its_jdk():
    found = apps.discover()
    on17, on25 = images.tag(found["quarkus"], "jvm"), images.tag(found["quarkus"], "jvm-jdk25")
    assert "-jdk17." in on17 and "-jdk25" in on25 and on17.split("-")[0] == on25.split("-")[0]  # one build


def test_modes_without_an_image_recipe_say_why():
    found = apps.discover()
    with pytest.raises(images.NoImage, match="AOT cache"):
        images.recipe(found["spring-boot"], "aot-cache")
    assert images.recipe(found["spring-boot"], "jvm").kind == "jib"
    assert images.recipe(found["quarkus"], "jvm").kind == "java-jar"
    assert images.recipe(found["go-reference"], "native").kind == "native"


def test_only_jibs_images_are_pushed_and_the_error_says_how_to_push_the_others(workdir):
    with pytest.raises(LabError) as err:
        images.build(apps.discover()["go-reference"], "native", images="push", registry="reg.example:5000")
    assert "crane push" in err.value.fix and "reg.example:5000/perflab-go-reference-native:" in err.value.fix


def test_jib_command_builds_a_tarball_or_pushes(tmp_path):
    app = apps.discover()["spring-boot"]
    tar = images.jib_command(app, "perflab-spring-boot-jvm:t", "tar:///base.tar", tmp_path / "o.tar", push=False)
    assert f"{images.JIB_PLUGIN}:buildTar" in tar and f"-Djib.outputPaths.tar={tmp_path / 'o.tar'}" in tar
    assert "-Djib.from.image=tar:///base.tar" in tar and f"-P{images.JIB_PROFILE}" in tar
    pushed = images.jib_command(app, "reg:5000/perflab-spring-boot-jvm:t", "b", tmp_path / "o.tar", push=True)
    assert f"{images.JIB_PLUGIN}:build" in pushed and not any("outputPaths" in a for a in pushed)
    assert f"<id>{images.JIB_PROFILE}</id>" in (app.dir / "pom.xml").read_text()


# -- real images of the apps -------------------------------------------------------------------

def _built(app: str, mode: str):
    built = images.build(apps.discover()[app], mode, images="tarball", registry="", log=lambda line: None)
    return built, oci.inspect(built.tarball)


def _executable(info: tarfile.TarInfo) -> bool:
    return info.isfile() and bool(info.mode & 0o111)


@pytest.mark.slow
def test_the_go_reference_image_is_its_binary_and_the_libraries_it_links(workdir):
    built, img = _built("go-reference", "native")
    files = img.files()
    assert len(img.layers) == 1 and img.entrypoint == ["/app/go-reference"]
    assert _executable(files["/app/go-reference"])
    app = apps.discover()["go-reference"]
    assert files["/app/go-reference"].size == app.artifact_path.stat().st_size  # the measured binary itself
    assert set(e.path for e in base.shared_libraries([app.artifact_path])) <= set(files)
    assert built.tarball == images.tarball_path(built.image)


@pytest.mark.slow
def test_the_quarkus_image_runs_its_fast_jar_on_a_runtime_from_this_machines_jdk(workdir):
    built, img = _built("quarkus", "jvm")
    files = img.files()
    assert img.entrypoint == ["java", "-jar", "/app/quarkus-run.jar"] and img.env["PATH"].startswith("/opt/java/bin")
    assert _executable(files["/opt/java/bin/java"]) and "/opt/java/lib/server/libjvm.so" in files
    assert "/lib64/ld-linux-x86-64.so.2" in files and "/lib/x86_64-linux-gnu/libc.so.6" in files
    assert "/app/quarkus-run.jar" in files and any(p.startswith("/app/lib/main/") for p in files)
    assert files["/tmp"].isdir() and files["/tmp"].mode & 0o1777 == 0o1777
    # base, dependencies, application: an edit of the app changes only the last layer
    assert len(img.layers) == 3 and all(i.name.startswith("app/lib") for i in img.layers[1] if i.name != "app")


@pytest.mark.slow
def test_the_spring_boot_image_is_jibs_on_the_labs_base(workdir):
    built, img = _built("spring-boot", "jvm")
    files = img.files()
    assert img.entrypoint[:3] == ["java", "-cp", "@/app/jib-classpath-file"]
    assert _executable(files["/opt/java/bin/java"]) and "/app/jib-classpath-file" in files
    assert any(p.startswith("/app/classes/dev/perflab/") for p in files)
    assert not [p for p in files if "spring-boot-devtools" in p]  # left out, as the repackaged jar does
    assert "docker.io/library/" + built.image in [oci.full_name(n) for n in img.names]


@pytest.mark.slow
def test_the_images_import_into_containerd_and_start(workdir, containerd):
    """What a node's runtime does with them: `ctr -n k8s.io images import`, then run the image."""

    for app, mode, port, answer in (("go-reference", "native", 18391, "Hello from Go"),
                                    ("quarkus", "jvm", 18392, "Hello from Quarkus")):
        built = images.build(apps.discover()[app], mode, images="tarball", registry="", log=lambda line: None)
        out = containerd.ctr("images", "import", str(built.tarball))
        assert oci.full_name(built.image) in containerd.ctr("images", "ls", "-q"), out
        with containerd.run(oci.full_name(built.image), {"HTTP_PORT": str(port),
                                                         "DB_URL": "jdbc:postgresql://127.0.0.1:1/none",
                                                         "DB_USER": "x", "DB_PASSWORD": "x"}):
            body = containerd.wait_http(f"http://127.0.0.1:{port}/hello", timeout_s=90)
        assert answer in body


# -- the load driver's image -------------------------------------------------------------------

def test_the_driver_image_is_oha_its_keeper_and_the_libraries_oha_links_named_by_their_versions(workdir, oha_binary):
    from perflab.drivers.install import OHA_VERSION
    from perflab.kube import driver_image, manifests

    said = []
    built = driver_image.build("tarball", "", log=said.append)
    img = oci.inspect(built.tarball)
    files = img.files()
    assert built.image == f"perflab-driver-oha:{OHA_VERSION}-{driver_image.keeper_digest()}"
    assert built.tarball == images.tarball_path(built.image)
    # the keeper holds the pod open; the lab runs oha in it by exec
    assert len(img.layers) == 1 and img.entrypoint == [driver_image.KEEPER_AT]
    assert _executable(files[driver_image.KEEPER_AT]) and _executable(files[manifests.DRIVER_OHA])
    assert files[manifests.DRIVER_OHA].size == oha_binary.stat().st_size
    assert set(e.path for e in base.shared_libraries([oha_binary])) <= set(files)
    assert driver_image.build("tarball", "", log=said.append).tarball == built.tarball
    assert "written before" in said[-1]  # one version, one image: not made again


def test_the_driver_image_follows_placement_images_as_the_apps_do(workdir):
    from perflab.kube import driver_image, prepare
    from perflab.placements.settings import PlacementSettings

    wanted = prepare.Images()
    prepare.driver(wanted, PlacementSettings(kind="kubernetes", registry="reg.example:5000"), say=lambda line: None)
    assert wanted.refs[driver_image.LABEL].startswith("reg.example:5000/perflab-driver-oha:") and not wanted.tarballs
    with pytest.raises(LabError) as err:
        driver_image.build("push", "reg.example:5000")
    assert "crane push" in err.value.fix and driver_image.reference("reg.example:5000") in err.value.fix


@pytest.mark.slow
def test_the_driver_images_oha_runs_in_containerd_and_reports_as_the_driver_pod_would(workdir, containerd):
    """The image's oha, started by a node's runtime with the arguments the lab gives it in the driver
    pod, loads a server and prints the report the lab reads."""
    from perflab.kube import driver_image, manifests
    from perflab.kube.cluster_load import Load, oha_args, oha_result
    from tests.support.standin_server import StandinServer

    built = driver_image.build("tarball", "", log=lambda line: None)
    containerd.ctr("images", "import", str(built.tarball))
    spec = Load("/hello", 2, 1.0)
    with StandinServer() as server:
        # as the lab execs it: the image's oha (its entrypoint is the keeper that holds the pod open)
        command = [manifests.DRIVER_OHA, *oha_args(server.url + spec.path, spec)]
        log = containerd.output(oci.full_name(built.image), command)
    result = oha_result(log, server.url + spec.path, spec)
    assert result.requests > 0 and result.errors.total == 0
