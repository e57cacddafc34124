"""Release lines of an app's framework: which line a version belongs to, and a line's overlay
replacing files in that version's copy only (the Spring Boot app's 3.x line)."""

from __future__ import annotations

import pytest

from perflab import apps
from perflab.apps import versions
from perflab.errors import LabError
from tests.conftest import write_standin_app

LINES = versions.VersionSpec(env={"V": "{version}"}, lines={"3": "boot3", "3.5": "boot35", "4.1": "next"})


@pytest.mark.parametrize("version, line", [
    ("3.5.7", "3.5"),        # the longest prefix wins
    ("3.4.0", "3"),
    ("3", "3"),
    ("3.5.0-RC1", "3.5"),    # a pre-release belongs to its line
    ("30.1", ""),            # "3" is a prefix of numbers, not of text
    ("4.0.7", ""),
    ("4.1", "4.1"),
    ("4.10.2", ""),
])
def test_a_version_belongs_to_the_line_of_its_longest_numeric_prefix(version, line):
    assert versions.line_of(LINES, version) == line


def _versioned(tmp_path, lines: str):
    folder = write_standin_app(tmp_path)
    desc = folder / "perflab.toml"
    desc.write_text(desc.read_text().replace(
        "[build]", f'[versions]\nenv = {{ STANDIN_VERSION = "{{version}}" }}\n{lines}\n[build]'))
    return folder


@pytest.mark.parametrize("lines, message", [
    ('[versions.lines."3.x"]\noverlay = "old"', "version prefix"),
    ('[versions.lines."3"]\nfolder = "old"', "overlay folder"),
    ('[versions.lines."3"]\noverlay = "../elsewhere"', "folder inside the app"),
    ('[versions.lines."3"]\noverlay = "/tmp/old"', "folder inside the app"),
])
def test_a_wrong_line_is_refused_with_what_is_wrong(tmp_path, lines, message):
    with pytest.raises(LabError, match="versions") as err:
        apps.load_descriptor(_versioned(tmp_path, lines) / "perflab.toml")
    assert message in err.value.message


def test_the_lines_overlay_replaces_files_in_its_versions_copy_only(tmp_path, workdir):
    folder = _versioned(tmp_path, '[versions.lines."1"]\noverlay = "old"')
    (folder / "old" / "src").mkdir(parents=True)
    (folder / "old" / "src" / "version.txt").write_text("old line\n")
    (folder / "old" / "src" / "extra.txt").write_text("only on the old line\n")
    app = apps.load_descriptor(folder / "perflab.toml")

    old = versions.variant(app, "1.9")
    assert (old.dir / "src" / "version.txt").read_text() == "old line\n"
    assert (old.dir / "src" / "extra.txt").exists()
    assert not (old.dir / "old").exists()  # the overlay folder itself is no source of the build

    new = versions.variant(app, "2.0")
    assert (new.dir / "src" / "version.txt").read_text() == "1\n" and not (new.dir / "src" / "extra.txt").exists()
    assert (folder / "src" / "version.txt").read_text() == "1\n"  # the app itself is left alone


def test_an_overlay_file_outside_the_sources_or_a_missing_overlay_is_named(tmp_path, workdir):
    folder = _versioned(tmp_path, '[versions.lines."1"]\noverlay = "old"')
    app = apps.load_descriptor(folder / "perflab.toml")
    with pytest.raises(LabError, match="overlay folder 'old'.*does not exist"):
        versions.variant(app, "1.0")
    (folder / "old").mkdir()
    (folder / "old" / "build.sh").write_text("echo not hashed\n")
    with pytest.raises(LabError, match="old/build.sh lies outside the app's sources"):
        versions.variant(app, "1.0")


def test_spring_boot_3_gets_boot_3s_starter_and_boot_4_keeps_the_apps_own_pom(workdir):
    app = apps.get("spring-boot")
    boot3 = (versions.variant(app, "3.5.7").dir / "pom.xml").read_text()
    boot4 = (versions.variant(app, "4.0.7").dir / "pom.xml").read_text()
    assert "<version>3.5.7</version>" in boot3[boot3.index("<parent>"):boot3.index("</parent>")]
    assert "<artifactId>spring-boot-starter-web</artifactId>" in boot3
    assert "<artifactId>spring-boot-starter-webmvc</artifactId>" not in boot3
    assert "<artifactId>spring-boot-starter-webmvc</artifactId>" in boot4 and "<version>4.0.7</version>" in boot4


def test_an_app_at_a_version_is_found_by_name_with_its_lines_copy(workdir):
    boot3 = apps.get("spring-boot@3.5.7")
    assert boot3.name == "spring-boot@3.5.7" and boot3.framework_version == "3.5.7"
    assert "<artifactId>spring-boot-starter-web</artifactId>" in (boot3.dir / "pom.xml").read_text()
    with pytest.raises(LabError, match="is not a version"):
        apps.get("spring-boot@newest")
    with pytest.raises(LabError, match="no app named 'spring-shoe'"):
        apps.get("spring-shoe@3.5.7")
