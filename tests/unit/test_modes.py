"""Runtime modes: native-image detection, per-mode builds and the reasons a mode is unavailable."""

from __future__ import annotations

import os
import stat

import pytest

from perflab import apps


def _fake_native_image(folder):
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "native-image"
    exe.write_text("#!/bin/sh\necho fake\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


@pytest.fixture
def no_graalvm(monkeypatch, tmp_path):
    monkeypatch.delenv("GRAALVM_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    return tmp_path


def _native_mode_app():
    return apps.get("quarkus")


def test_native_is_unavailable_without_native_image_and_says_where_it_looked(no_graalvm):
    assert apps.native_image() is None
    why = apps.unavailable(_native_mode_app(), "native")
    assert why.startswith("unavailable: no GraalVM or Mandrel native-image "
                          "(GRAALVM_HOME is unset, and native-image is not on PATH); ")


def test_native_unavailable_names_the_piece_the_registries_do_not_serve(no_graalvm):
    why = apps.unavailable(_native_mode_app(), "native")
    assert "not its native part" in why and "svm-hosted-native-linux-amd64 ends at 21.1.0" in why
    assert why.endswith("see docs/native-image-feasibility.md")
    assert why == "unavailable: " + apps.native_image_missing()


def test_the_study_the_reason_points_to_is_in_the_repository():
    from perflab.paths import REPO_ROOT

    study = (REPO_ROOT / "docs" / "native-image-feasibility.md").read_text()
    assert "svm-hosted-native-linux-amd64" in study and "21.1.0" in study


def test_graalvm_home_without_the_tool_is_named(no_graalvm, monkeypatch, tmp_path):
    monkeypatch.setenv("GRAALVM_HOME", str(tmp_path / "graal"))
    assert "GRAALVM_HOME is set but has no bin/native-image" in apps.unavailable(_native_mode_app(), "native")


def test_native_image_is_found_in_graalvm_home(no_graalvm, monkeypatch, tmp_path):
    exe = _fake_native_image(tmp_path / "graal" / "bin")
    monkeypatch.setenv("GRAALVM_HOME", str(tmp_path / "graal"))
    assert apps.native_image() == exe
    assert apps.native_image_missing() == ""
    assert apps.unavailable(_native_mode_app(), "native") == ""


def test_native_image_is_found_on_path(no_graalvm, monkeypatch, tmp_path):
    exe = _fake_native_image(tmp_path / "somewhere")
    monkeypatch.setenv("PATH", f"{tmp_path / 'somewhere'}{os.pathsep}{os.environ['PATH']}")
    assert apps.native_image() == exe
    assert apps.unavailable(_native_mode_app(), "native") == ""


def test_a_mode_with_its_own_build_has_its_own_artifact_and_cache_entry():
    app = apps.get("quarkus")
    native = app.for_mode("native")
    assert native.build_key == "quarkus@native"
    assert native.artifact != app.artifact
    assert any("native" in a for a in native.build_command)
    assert app.for_mode("jvm") is app


def test_jvm_and_aot_modes_are_declared_for_both_jvm_frameworks():
    for name in ("quarkus", "spring-boot"):
        app = apps.get(name)
        assert app.modes["jvm"].jdk == 17 and app.modes["jvm-jdk25"].jdk == 25
        assert app.modes["aot-cache"].aot == "train" and app.modes["aot-cache"].jdk == 25
        assert "native-image" in app.modes["native"].requires


def test_doctor_says_native_cannot_be_built_here_and_why(no_graalvm):
    from perflab import doctor

    check = doctor._check_native_image()
    assert not check.ok and not check.required
    assert check.detail == apps.native_image_missing()
    assert "GRAALVM_HOME" in check.fix
    assert "[warn   ] native-image (the apps' native modes): no GraalVM or Mandrel" in doctor.render([check])
