"""doctor runs a found native-image and reports its version."""

from __future__ import annotations

from tests.unit.test_modes import _fake_native_image, no_graalvm  # noqa: F401 - the fixture


def test_doctor_reports_a_found_native_image_with_its_version(no_graalvm, monkeypatch, tmp_path):
    from perflab import doctor

    exe = _fake_native_image(tmp_path / "graal" / "bin")
    monkeypatch.setenv("GRAALVM_HOME", str(tmp_path / "graal"))
    check = doctor._check_native_image()
    assert check.ok and check.detail == f"{exe} (fake)"
