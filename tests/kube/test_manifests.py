"""Rendering of the lab's objects: labels, the plan's limits, probes, affinity, names."""

from __future__ import annotations

import pytest

from perflab.kube import manifests as m


def _container(**over):
    args = dict(image="perflab-quarkus-jvm:0123456789ab-jdk17.0.15", cpus=2, memory_mb=768, jvm_opts=["-Xmx256m", "-XX:+UseSerialGC"],
                db_env={"DB_URL": "jdbc:postgresql://db:5432/perflab", "DB_USER": "perflab", "DB_PASSWORD": "s3"},
                ready_path="/health/ready", mode="jvm")
    args.update(over)
    return m.app_container(**args)


def _env(container):
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


def test_the_plans_limits_are_both_requests_and_limits():
    res = _container()["resources"]
    assert res["requests"] == res["limits"] == {"cpu": "2", "memory": "768Mi"}
    assert _container(cpus=0.5)["resources"]["limits"]["cpu"] == "500m"


def test_jvm_options_reach_every_jvm_through_java_tool_options():
    assert _env(_container())["JAVA_TOOL_OPTIONS"] == "-Xmx256m -XX:+UseSerialGC"
    assert "JAVA_TOOL_OPTIONS" not in _env(_container(jvm_opts=[]))


def test_probes_use_the_contracts_health_paths():
    c = _container(ready_path="/health/ready")
    assert c["readinessProbe"]["httpGet"] == {"path": "/health/ready", "port": m.CONTAINER_PORT}
    assert c["livenessProbe"]["httpGet"]["path"] == "/health/live"


def test_a_built_image_is_not_pulled_again_and_the_modes_variables_reach_the_app():
    c = _container(mode_env={"PERFLAB_API": "reactive"})
    assert c["imagePullPolicy"] == "IfNotPresent"
    assert _env(c)["PERFLAB_API"] == "reactive"
    assert _container(pull_policy="Never")["imagePullPolicy"] == "Never"


def test_the_runs_db_password_comes_from_its_secret_a_users_url_is_given_as_is():
    assert _env(_container(db_secret="postgres"))["DB_PASSWORD"] == {"secretKeyRef": {"name": "postgres", "key": "password"}}
    assert _env(_container())["DB_PASSWORD"] == "s3"


def test_every_object_carries_the_run_labels():
    run = "20261123-173000-ab12"
    objects = _every_object(run) + [m.knative_service("q", run, _container())]
    for body in objects:
        assert body["metadata"]["labels"][m.RUN] == run, body["kind"]
        assert body["metadata"]["labels"][m.MANAGED_BY] == "perflab"
    assert m.run_selector(run) == f"app.kubernetes.io/managed-by=perflab,perflab.dev/run={run}"


def test_knative_service_scales_to_zero_without_a_liveness_probe():
    kn = m.knative_service("q", "r", _container())
    tmpl = kn["spec"]["template"]
    assert tmpl["metadata"]["annotations"]["autoscaling.knative.dev/min-scale"] == "0"
    assert "livenessProbe" not in tmpl["spec"]["containers"][0]


@pytest.mark.parametrize("app, mode, name", [("spring-boot", "jvm-jdk25", "spring-boot-jvm-jdk25"),
                                              ("Go_Ref", "native", "go-ref-native")])
def test_names_are_dns_labels(app, mode, name):
    assert m.workload_name(app, mode) == name
    assert m.image_name(app, mode, "reg:5000/lab/", "abc") == f"reg:5000/lab/perflab-{m.dns_label(app)}-{mode}:abc"
    assert m.dns_label("x" * 80) == "x" * 63


def test_an_image_is_never_named_latest():
    with pytest.raises(ValueError, match="latest"):
        m.image_name("quarkus", "jvm", "", "latest")


def _every_object(run):
    c = _container(db_secret="postgres")
    return [m.namespace("perflab-x", run, "host:1"), m.app_pod("q-i1", run, c, "q"), m.db_secret(run, "pw"),
            *m.postgres(run, "postgres:15"), m.driver_pod("d", run, image="drv"),
            m.driver_pod("d1", run, image="drv", apart=False), m.resource_quota(run, 2048)]


def test_every_object_passes_the_kubernetes_schemas_offline():
    kv = pytest.importorskip("kubernetes_validate", reason="the Kubernetes schemas come with the test extras")
    version = kv.latest_version()
    for body in _every_object("20261123-173000-ab12"):
        kv.validate(body, version, strict=True)  # strict: an unknown field is an error too
    with pytest.raises(kv.ValidationError):
        kv.validate(m.app_pod("q-i1", "r", {**_container(), "limitz": {}}, "q"), version, strict=True)


def test_the_readmes_cluster_role_is_the_labs():
    import re
    from pathlib import Path

    yaml = pytest.importorskip("yaml")
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("**Permissions**", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    assert yaml.safe_load(block) == m.lab_cluster_role()


def test_a_native_pod_gets_the_plans_heap_sizes_as_arguments_and_a_jvm_pod_all_of_its_options():
    from types import SimpleNamespace

    from perflab import apps, plan as plans
    from perflab.kube.site import container_for_plan as container_for

    # -Xmx64m for every JVM; the study's native command's own heap flags for native modes
    plan = plans.load("lab2020")
    db = {"DB_URL": "jdbc:postgresql://db:5432/perflab"}
    native = container_for(plan, SimpleNamespace(app=apps.get("quarkus"), mode="native"), "img:1", "Never", db)
    jvm = container_for(plan, SimpleNamespace(app=apps.get("quarkus"), mode="jvm"), "img:1", "Never", db)
    heap = plan["limits"]["native_heap_opts"]
    assert heap and native["args"] == heap and "JAVA_TOOL_OPTIONS" not in _env(native)
    # without native_heap_opts, a native pod gets jvm_opts' heap sizes
    shared = plans.validate({**plan.data, "limits": {**plan.data["limits"], "native_heap_opts": []}}, "t")
    plain = container_for(shared, SimpleNamespace(app=apps.get("quarkus"), mode="native"), "img:1", "Never", db)
    assert plain["args"] == [o for o in plan["limits"]["jvm_opts"] if o.startswith("-Xm")]
    assert "args" not in jvm and _env(jvm)["JAVA_TOOL_OPTIONS"] == " ".join(plan["limits"]["jvm_opts"])
    go = container_for(plan, SimpleNamespace(app=apps.get("go-reference"), mode="native"), "img:1", "Never", db)
    assert "args" not in go  # its command takes no heap options
