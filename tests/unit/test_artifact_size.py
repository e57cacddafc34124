"""An artifact's size as shipped (apps.building.artifact_bytes): a thin jar counts with every file its
manifest's Class-Path names (a wrapped manifest line included), a fast-jar with its whole folder, a
fat jar or a binary alone."""

from __future__ import annotations

import zipfile
from pathlib import Path

from perflab.apps.building import artifact_bytes, class_path


def _jar(path: Path, manifest: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", manifest)
    return path


def _wrapped(header: str, value: str) -> str:
    """A manifest header as jar tools write it: 72 bytes a line, each further line after one space."""
    line = f"{header}: {value}"
    parts = [line[:72]] + [" " + line[i:i + 71] for i in range(72, len(line), 71)]
    return "\r\n".join(parts) + "\r\n"


def test_a_thin_jar_counts_with_the_libraries_its_manifest_names(tmp_path):
    libs = [f"libs/helidon-common-configurable-4.5.0-{n}.jar" for n in range(4)]
    for n, name in enumerate(libs):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x" * (1000 * (n + 1)))
    (tmp_path / "libs" / "not-on-the-class-path.jar").write_bytes(b"y" * 50_000)
    jar = _jar(tmp_path / "app.jar", "Manifest-Version: 1.0\r\n" + _wrapped("Class-Path", " ".join(libs)))
    assert [p.name for p in class_path(jar)] == [Path(name).name for name in libs]
    assert artifact_bytes(jar) == jar.stat().st_size + 1000 + 2000 + 3000 + 4000


def test_a_jar_without_a_class_path_and_a_binary_count_alone(tmp_path):
    jar = _jar(tmp_path / "fat.jar", "Manifest-Version: 1.0\nMain-Class: app.Main\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "beside.jar").write_bytes(b"z" * 10_000)
    assert artifact_bytes(jar) == jar.stat().st_size
    binary = tmp_path / "server"
    binary.write_bytes(b"\x7fELF" + b"0" * 996)
    assert class_path(binary) == [] and artifact_bytes(binary) == 1000


def test_a_fast_jar_counts_its_whole_folder(tmp_path):
    run = _jar(tmp_path / "quarkus-app" / "quarkus-run.jar", "Manifest-Version: 1.0\n")
    (tmp_path / "quarkus-app" / "lib" / "main").mkdir(parents=True)
    (tmp_path / "quarkus-app" / "lib" / "main" / "core.jar").write_bytes(b"c" * 7000)
    assert artifact_bytes(run) == run.stat().st_size + 7000
