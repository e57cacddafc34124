"""Framework versions as variants: parsing and release order, the descriptor's [versions], the
variant's own copy and build inputs, the upgrade headline pairs, and what a failed build says."""

from __future__ import annotations

import tomllib

import pytest

from perflab import apps, headline, plan, rounds, version_builds
from perflab.apps import versions
from perflab.errors import LabError
from tests.conftest import write_standin_app


def test_release_order_compares_numbers_as_numbers_and_puts_pre_releases_first():
    given = ["3.10.0", "4.0.0", "3.9.2", "4.0.0-RC1", "4.0.0-M3", "3.9.10", "3.28.3"]
    assert versions.in_release_order(given) == ["3.9.2", "3.9.10", "3.10.0", "3.28.3", "4.0.0-M3", "4.0.0-RC1",
                                                "4.0.0"]


def test_final_and_ga_equal_the_plain_release_and_a_service_pack_comes_after_it():
    assert versions.release_key("2.7.0.Final") == versions.release_key("2.7.0")
    assert versions.release_key("3.0") == versions.release_key("3.0.0")
    assert versions.release_key("2.7.0") < versions.release_key("2.7.0.SP1") < versions.release_key("2.7.1")


@pytest.mark.parametrize("bad", ["latest", "", "v3.1", "3.1 beta", "../3.1"])
def test_what_is_not_a_version_is_refused_by_name(bad):
    with pytest.raises(LabError, match="is not a version"):
        versions.check_version(bad, "versions.quarkus")


def test_versions_from_the_command_line():
    assert versions.parse_cli(["quarkus=3.33.2,3.37.1", "spring-boot=4.0.7", "quarkus=3.34.3"]) == {
        "quarkus": ["3.33.2", "3.37.1", "3.34.3"], "spring-boot": ["4.0.7"]}
    with pytest.raises(LabError, match="APP=VERSION"):
        versions.parse_cli(["quarkus"])
    with pytest.raises(LabError, match="is not a version"):
        versions.parse_cli(["quarkus=next"])


def _descriptor_with(tmp_path, table: str):
    app = write_standin_app(tmp_path)
    desc = app / "perflab.toml"
    text = desc.read_text()
    cut = text.index("[build]")
    desc.write_text(text[:cut] + table + "\n" + text[cut:])
    return desc


@pytest.mark.parametrize("table, message", [
    ('[versions]\nproprety = "x.version"', "unknown key"),
    ("[versions]\n", "name what carries the version"),
    ('[versions]\nenv = { GOTOOLCHAIN = "go1.26" }', "{version}"),
    ('[versions]\nparent = "spring-boot-starter-parent"', "groupId:artifactId"),
])
def test_a_wrong_versions_table_is_an_error_that_says_what_is_wrong(tmp_path, table, message):
    with pytest.raises(LabError, match="versions") as err:
        apps.load_descriptor(_descriptor_with(tmp_path, table))
    assert message in err.value.message


def test_the_repository_apps_say_which_build_input_carries_their_version():
    found = apps.discover()
    assert found["quarkus"].versions.property == "quarkus.platform.version"
    assert found["spring-boot"].versions.parent == "org.springframework.boot:spring-boot-starter-parent"
    assert "{version}" in found["go-reference"].versions.env["GOTOOLCHAIN"]


def test_an_app_without_versions_table_cannot_be_built_at_another_version(tmp_path, workdir):
    app = apps.load_descriptor(write_standin_app(tmp_path) / "perflab.toml")
    with pytest.raises(LabError, match="which build input carries") as err:
        versions.variant(app, "2.0")
    assert "[versions]" in err.value.fix


def test_a_quarkus_variant_builds_a_copy_with_the_version_property(workdir):
    app = apps.get("quarkus")
    variant = versions.variant(app, "3.33.2")
    assert variant.name == variant.build_key == "quarkus@3.33.2"
    assert variant.framework_version == "3.33.2"
    assert variant.build_command == [*app.build_command, "-Dquarkus.platform.version=3.33.2"]
    assert variant.dir != app.dir and (variant.dir / "pom.xml").read_text() == (app.dir / "pom.xml").read_text()
    assert variant.artifact_path.is_relative_to(variant.dir)  # the versions' artifacts never overwrite each other
    # a mode with a build of its own (virtual threads) gets the version too
    assert "-Dquarkus.platform.version=3.33.2" in variant.for_mode("virtual-threads").build_command
    assert versions.split_name(variant.name) == ("quarkus", "3.33.2")


def test_a_spring_variant_names_the_version_as_its_parents_and_leaves_the_app_alone(workdir):
    app = apps.get("spring-boot")
    before = (app.dir / "pom.xml").read_text()
    variant = versions.variant(app, "4.0.7")
    pom = (variant.dir / "pom.xml").read_text()
    parent = pom[pom.index("<parent>"):pom.index("</parent>")]
    assert "<version>4.0.7</version>" in parent
    assert pom.replace(parent, "") == before.replace(before[before.index("<parent>"):before.index("</parent>")], "")
    assert (app.dir / "pom.xml").read_text() == before
    assert variant.build_command == app.build_command


def test_a_parent_the_pom_does_not_have_is_named(tmp_path):
    pom = tmp_path / "pom.xml"
    pom.write_text("<project><parent><groupId>a</groupId><artifactId>b</artifactId><version>1</version></parent>"
                   "</project>")
    with pytest.raises(LabError, match="no <parent> org.x:y"):
        versions.set_parent_version(pom, "org.x:y", "2")


def test_upgrade_headlines_are_consecutive_versions_of_one_app_mode_in_release_order():
    targets = [("quarkus@3.37.1/jvm", True, True), ("quarkus@3.9.0/jvm", True, True),
               ("quarkus@3.33.2/jvm", True, True), ("spring-boot@4.0.7/jvm", True, True),
               ("spring-boot@4.1.1/jvm", True, True), ("thorntail/jvm", True, True)]
    pairs = headline.pairs(rounds.RoundSettings().headline, targets)
    assert [p.label for p in pairs] == ["quarkus@3.33.2/jvm / quarkus@3.9.0/jvm",
                                       "quarkus@3.37.1/jvm / quarkus@3.33.2/jvm",
                                       "spring-boot@4.1.1/jvm / spring-boot@4.0.7/jvm"]


def test_a_plan_names_versions_of_known_apps_only():
    with pytest.raises(LabError, match="unknown app 'micronaut' in versions"):
        plan.validate({"name": "x", "versions": {"micronaut": ["4.0.0"]}}, "x.toml", known_apps=["quarkus"])
    with pytest.raises(LabError, match="versions.quarkus"):
        plan.validate({"name": "x", "versions": {"quarkus": ["newest"]}}, "x.toml", known_apps=["quarkus"])


def test_the_upgrade_plan_asks_for_three_quarkus_releases_and_two_spring_boot_lines():
    loaded = plan.load("upgrade", known_apps=list(apps.discover()))
    planned = loaded["versions"]
    assert len(planned["quarkus"]) >= 3
    assert {v.split(".")[0] for v in planned["spring-boot"]} >= {"3", "4"}
    assert set(loaded["scenarios"]) >= {"startup", "footprint", "steady"}
    assert tomllib.loads((plan.PLANS_DIR / "upgrade.toml").read_text())["modes"] == ["main"]


MAVEN_MISSING = """[ERROR] Failed to execute goal on project perflab-quarkus: Could not resolve dependencies for project dev.perflab:perflab-quarkus:jar:1.0.0
[ERROR] dependency: io.quarkus:quarkus-hibernate-orm-panache:jar:3.38.1 (compile)
[ERROR] \tCould not find artifact io.quarkus:quarkus-hibernate-orm-panache:jar:3.38.1 in central (https://repo.maven.apache.org/maven2)
"""
MAVEN_MODEL = """[ERROR] [ERROR] Some problems were encountered while processing the POMs:
[ERROR] 'dependencies.dependency.version' for org.springframework.boot:spring-boot-starter-webmvc:jar is missing. @ line 26, column 17
 @
[ERROR] The build could not read 1 project -> [Help 1]
"""
MAVEN_CACHED = ("[ERROR] Failed to execute goal on project perflab-quarkus: Could not resolve dependencies for project "
                "dev.perflab:perflab-quarkus:jar:1.0.0\n[ERROR] dependency: io.quarkus:quarkus-reactive-pg-client:jar:3.36.1 "
                "(compile)\n[ERROR] \tio.quarkus:quarkus-reactive-pg-client:jar:3.36.1 was not found in "
                "https://repo.maven.apache.org/maven2 during a previous attempt. This failure was cached in the local "
                "repository and resolution is not reattempted until the update interval of central has elapsed\n")
GO_REFUSED = "go: go.mod requires go >= 1.26.0 (running go 1.25.4; GOTOOLCHAIN=go1.25.4)\n"


def test_a_failed_build_is_explained_by_the_missing_artifact_or_its_first_real_error():
    assert version_builds.failure_reason(MAVEN_MISSING) == "Could not find artifact io.quarkus:quarkus-hibernate-orm-panache:jar:3.38.1"
    assert version_builds.failure_reason(MAVEN_MODEL).startswith("'dependencies.dependency.version' for "
                                                          "org.springframework.boot:spring-boot-starter-webmvc")
    assert version_builds.failure_reason(MAVEN_CACHED) == ("io.quarkus:quarkus-reactive-pg-client:jar:3.36.1 was not found in "
                                                     "https://repo.maven.apache.org/maven2")
    assert version_builds.failure_reason(GO_REFUSED) == GO_REFUSED.strip()


def test_what_built_and_what_did_not_is_listed_in_release_order(workdir):
    version_builds.record("quarkus@3.37.1", True)
    version_builds.record("quarkus@3.38.1", False, "Could not find artifact io.quarkus:x:jar:3.38.1")
    version_builds.record("quarkus@3.9.0", True)
    version_builds.record("quarkus-other@1.0", True)
    listed = version_builds.known("quarkus")
    assert [(e["version"], e["builds"]) for e in listed] == [("3.9.0", True), ("3.37.1", True), ("3.38.1", False)]
    assert listed[-1]["why"].startswith("Could not find artifact")


def test_a_versions_build_figures_go_under_its_build_not_under_a_mode_named_after_the_version(workdir):
    from perflab.scenarios.footprint import build_mode

    app = apps.get("quarkus")
    variant = versions.variant(app, "3.33.2")
    assert build_mode(variant.build_key, variant.name) == "all"
    assert build_mode(variant.for_mode("virtual-threads").build_key, variant.name) == "virtual-threads"
    assert build_mode(app.for_mode("native").build_key, app.name) == "native"


def test_a_plan_without_versions_keeps_each_app_as_it_is_and_versions_become_targets_in_release_order(workdir):
    from perflab import runner

    known = list(apps.discover())
    plain = runner.select_targets(plan.validate({"name": "x", "apps": ["quarkus"], "modes": ["main"]}, "x", known))
    assert [(t.label, t.app.dir) for t in plain] == [("quarkus/jvm", apps.get("quarkus").dir)]
    planned = plan.validate({"name": "x", "apps": ["quarkus", "spring-boot"], "modes": ["main"],
                             "versions": {"quarkus": ["3.37.1", "3.33.2"]}}, "x", known)
    assert [t.label for t in runner.select_targets(planned)] == ["quarkus@3.33.2/jvm", "quarkus@3.37.1/jvm",
                                                                 "spring-boot/jvm"]
