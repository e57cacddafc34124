"""Running a plan with `placement.kind = "kubernetes"`: the same plan, store and report as on one
machine, with the apps' pods on a cluster.

One namespace per run (`<placement.namespace>-<run id>`, labelled with the run id) holds the
database and each app/mode's Deployment and Service; density gets a namespace of its own because
its ResourceQuota is the budget. Whatever happens - a failure, Ctrl-C, SIGTERM - the run's
namespaces are deleted before the lab exits, and a run first removes what a crashed one left.
"""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
import time
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit, urlunsplit

from kubernetes.client.exceptions import ApiException

from perflab import environment, registry, signals
from perflab.errors import LabError
from perflab.kube import cluster as kube_cluster, coldstart as kube_coldstart, driver_image, load, manifests, \
    measure, prepare
from perflab.kube.loadjob import Driver
from perflab.kube.objects import Objects, api_message
from perflab.placements import KUBERNETES
from perflab.plan import Plan
from perflab.postgres import Connection
from perflab.store import Store
from perflab.targets import select_targets

# what does not run on a cluster is declared by each scenario (Scenario.not_on), in words that are true
# there; cold start runs where Knative Serving is installed. The scenarios this runner measures on a
# cluster itself (each other one declares why it does not run there: tests/unit/test_placements.py)
DISPATCHED = ("startup", "scaleup", "density", "coldstart", *load.SCENARIOS)
NO_KNATIVE = ("on kubernetes: no Knative: the cluster does not serve serving.knative.dev/v1 Service; "
              "serverless cold start is measured through Knative Serving")
NO_ACTIVATOR = ("on kubernetes: the cluster serves Knative's Service kind, but Knative's activator "
                f"({kube_coldstart.ACTIVATOR_NAMESPACE}/{kube_coldstart.ACTIVATOR_SERVICE}) is not there: "
                "is Knative Serving installed whole?")
COLD_ON_SIMULATED = "on kubernetes: the nodes are simulated (kwok): no pod starts, so there is no cold start to time"
Say = Callable[[str], None]
SIMULATED_REDUCTION = ("nodes simulated by kwok: pods run no containers, so these figures time the "
                       "control plane (API server, scheduler, controllers), not the apps")


def not_here(name: str) -> str:
    """Why a planned scenario does not run on a cluster, as the scenario declares it ("" where it runs)."""
    scenario = registry.get(name)
    why = scenario.why_not_on(KUBERNETES) if scenario else f"no scenario {name}"
    return f"on kubernetes: {why}" if why else ""


def run_plan(plan: Plan, say: Say = print, apps_root: Path | None = None) -> str:
    try:
        return _run_plan(plan, say, apps_root)
    except ApiException as exc:  # e.g. 403: the user lacks a permission the lab needs
        raise LabError(f"the API server refused a request of the lab: {api_message(exc)}",
                       fix="the lab needs the ClusterRole shown in README, 'Running on Kubernetes'"
                       if exc.status == 403 else None) from None


def _run_plan(plan: Plan, say: Say, apps_root: Path | None) -> str:
    placement = plan.model.placement
    cluster = kube_cluster.connect(placement)
    objs = Objects(cluster)
    objs.remove_leftovers(say)
    targets = select_targets(plan, apps_root)
    cluster_env = kube_cluster.environment(cluster)
    simulated = cluster_env["simulated_nodes"]
    cold = _Coldstart(_coldstart_unavailable(objs, simulated))
    wanted = _prepare(objs, plan, targets, simulated, cold, say, apps_root)
    env = environment.capture(frameworks={t.app.name: f"{t.app.framework} {t.app.framework_version}" for t in targets})
    env["placement"] = {"kind": "kubernetes", **cluster_env, "images": wanted.refs}
    env["topology"] = _topology(env["placement"], placement)
    store = Store()
    run_id = store.begin_run(recorded_plan(plan.data), env)
    namespace = f"{placement.namespace}-{run_id}"
    say(f"run {run_id}: plan {plan.name} on kube context {cluster.context} ({env['placement']['version']}, "
        f"{len(env['placement']['nodes'])} node(s)), namespace {namespace}")
    if simulated:
        say("the nodes are simulated (kwok): pods run no containers; figures time the control plane only")
    status = "complete"
    try:
        _create_namespace(objs, namespace, run_id, placement.timeout_s)
        db_env, db_secret = _database(objs, namespace, run_id, placement)
        for target in targets:
            _run_target(store, run_id, objs, plan, target, namespace, db_env, db_secret, simulated, wanted, cold, say)
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except BaseException as exc:
        status = "failed"
        store.finish_run(run_id, status, note=str(getattr(exc, "message", exc))[:500])
        raise
    finally:
        try:
            with signals.shielded():
                _delete_run(objs, run_id, say)
        finally:
            if status != "failed":
                store.finish_run(run_id, status)
    return run_id


@dataclasses.dataclass
class _Coldstart:
    """Whether cold start runs on this cluster ("" or why not) and, once images are settled, its
    reference target."""

    why_not: str
    reference: object = None


def _coldstart_unavailable(objs: Objects, simulated: bool) -> str:
    if not objs.serves("serving.knative.dev/v1", "Service"):
        return NO_KNATIVE
    try:
        objs.cluster.core().read_namespaced_service(kube_coldstart.ACTIVATOR_SERVICE,
                                                    kube_coldstart.ACTIVATOR_NAMESPACE)
    except ApiException as exc:
        if exc.status == 404:
            return NO_ACTIVATOR
        raise
    return COLD_ON_SIMULATED if simulated else ""


def _prepare(objs: Objects, plan: Plan, targets: list, simulated: bool, cold: _Coldstart, say: Say,
             apps_root: Path | None) -> prepare.Images:
    """Images first (made when the plan asks), then every object dry-run on the API server:
    whatever is wrong stops the run here, before anything exists on the cluster."""
    placement = plan.model.placement
    wanted = prepare.images(plan, targets, say)

    def measured(target) -> list[str]:
        return [s for s in plan.scenarios_for(target.mode, target.default_mode)
                if not not_here(s) and not (s == "coldstart" and cold.why_not)]

    if any(set(measured(t)) & set(load.SCENARIOS) for t in targets if not t.unavailable):
        prepare.driver(wanted, placement, say)
    if any("coldstart" in measured(t) for t in targets if not t.unavailable):
        found = prepare.reference(wanted, plan, apps_root, say)
        if isinstance(found, str):
            cold.why_not = found
        else:
            cold.reference = found
    if wanted.tarballs:
        if simulated:
            say("the nodes are simulated: the image tarballs are not loaded anywhere (nothing runs them)")
        else:
            missing = prepare.missing_on_nodes(objs.cluster.core().list_node().items, wanted)
            if missing:
                raise LabError(f"the nodes lack the run's images: {', '.join(missing)}",
                               fix=prepare.load_instructions(wanted))
    db_env = (Connection.from_url(placement.postgres_url).app_env() if placement.postgres_url
              else manifests.db_env_in_namespace(f"{placement.namespace}-{prepare.DRY_RUN_ID}"))
    prepare.dry_run(objs, prepare.rendered(plan, targets, wanted, measured, db_env, cold.reference))
    return wanted


def recorded_plan(data: dict) -> dict:
    """The plan as stored with the run: a database URL's password is never written to the results
    (the run's Secret holds it while the run lasts)."""
    url = data.get("placement", {}).get("postgres_url")
    if not url:
        return data
    parts = urlsplit(url)
    if parts.password is None:
        return data
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return {**data, "placement": {**data["placement"], "postgres_url": urlunsplit(parts._replace(netloc=netloc))}}


def _topology(cluster_env: dict, placement) -> dict:
    """How the run was placed, in the words the summary and report print (and what it lacks)."""
    nodes = cluster_env["nodes"]
    where = (f"kubernetes context {cluster_env['context']}, {len(nodes)} node(s), pods of one app/mode "
             f"at a time; the DB {'at the plan URL' if placement.postgres_url else 'as a StatefulSet in the run namespace'}")
    reductions = [SIMULATED_REDUCTION] if cluster_env["simulated_nodes"] else []
    return {"description": where, "reductions": reductions, "placement": "kubernetes"}


def _create_namespace(objs: Objects, name: str, run_id: str, timeout_s: float) -> None:
    objs.create_namespace(name, run_id)
    # pods are refused until the namespace's default ServiceAccount exists (made by a controller)
    deadline = time.monotonic() + min(timeout_s, 60)
    core = objs.cluster.core()
    while not core.list_namespaced_service_account(name, field_selector="metadata.name=default").items:
        if time.monotonic() > deadline:
            raise LabError(f"namespace {name}: no default ServiceAccount after 60 s (is the controller manager running?)")
        time.sleep(0.2)


def _delete_run(objs: Objects, run_id: str, say: Say) -> None:
    core = objs.cluster.core()
    for ns in core.list_namespace(label_selector=manifests.run_selector(run_id)).items:
        if not objs.delete_namespace(ns.metadata.name):
            say(f"warning: namespace {ns.metadata.name} is still terminating; delete it with "
                f"kubectl delete namespace {ns.metadata.name}")


def _database(objs: Objects, namespace: str, run_id: str, placement) -> tuple[dict[str, str], str]:
    """The apps' DB: the user's URL, or a PostgreSQL StatefulSet of the run. Either way its
    password is in the run's Secret, never in a pod's spec."""
    if placement.postgres_url:
        given = Connection.from_url(placement.postgres_url)
        objs.create(manifests.db_secret(run_id, given.password), namespace)
        return given.app_env(), manifests.POSTGRES
    objs.create(manifests.db_secret(run_id, secrets.token_urlsafe(18)), namespace)
    for body in manifests.postgres(run_id, placement.postgres_image):
        objs.create(body, namespace)
    try:
        pod, state = objs.watch_pods(namespace, f"{manifests.WORKLOAD}={manifests.POSTGRES}", measure.settled,
                                     placement.timeout_s)
    except TimeoutError:
        raise LabError(f"the run's PostgreSQL pod was not ready within placement.timeout_s = "
                       f"{placement.timeout_s:g} s", fix=f"check its image ({placement.postgres_image}) and the "
                       "cluster's events, or give placement.postgres_url") from None
    if state != "ready":
        raise measure.not_ready(pod, state, "the run's PostgreSQL")
    return manifests.db_env_in_namespace(namespace), manifests.POSTGRES


def _run_target(store: Store, run_id: str, objs: Objects, plan: Plan, target, namespace: str,
                db_env: dict[str, str], db_secret: str, simulated: bool, wanted: prepare.Images, cold: _Coldstart,
                say: Say) -> None:
    app, mode = target.app, target.mode
    planned = plan.scenarios_for(mode, target.default_mode)
    if target.unavailable:
        for name in planned:
            store.add_outcome(run_id, app.name, mode, name, "unavailable", target.unavailable.removeprefix("unavailable: "))
        return
    container = prepare.container_for(plan, target, wanted.refs[target.label], wanted.pull_policy, db_env, db_secret)
    w = measure.Workload(app.name, mode, namespace, run_id, container, app.ready_path, app.first_response_path,
                         simulated, plan.model.placement.timeout_s)
    objs.create(manifests.app_deployment(w.name, run_id, container, replicas=0), namespace)
    objs.create(manifests.app_service(w.name, run_id), namespace)
    driver = Driver(wanted.refs.get(driver_image.LABEL, ""), wanted.pull_policy)
    results: dict[str, object] = {}  # what a scenario hands to later ones (sweep's maxima to latency)
    for name in planned:
        if not_here(name) or (name == "coldstart" and cold.why_not):
            why = not_here(name) or cold.why_not
            store.add_outcome(run_id, app.name, mode, name, "unavailable", why)
            continue
        say(f"{target.label} {name} ...")
        try:
            if name == "coldstart":
                figures = kube_coldstart.run(objs, w, _reference_workload(plan, cold.reference, w, wanted, db_env,
                                                                          db_secret), plan.settings(name), say)
            else:
                figures = _scenario(objs, plan, name, w, db_secret, driver, results)
        except (LabError, TimeoutError) as exc:
            reason = getattr(exc, "message", str(exc)) + (f"; fix: {exc.fix}" if getattr(exc, "fix", None) else "")
            say(f"warning: {target.label} {name}: failed: {reason}")
            store.add_outcome(run_id, app.name, mode, name, "failed", reason)
            with contextlib.suppress(LabError, ApiException):  # the next scenario starts from 0 replicas
                measure.scale_to_zero(objs, w)
            continue
        for f in figures.figures:
            store.add_figure(run_id, app.name, mode, name, f["metric"], f["value"], f["unit"], point=f["point"].label,
                             params=dict(f["point"].params), repeat=f["repeat"], flags=f["flags"], extra=f["extra"])
        for kind, file_name, content in figures.files:
            store.add_file(run_id, app.name, mode, name, kind, file_name, content)
        for part, status, reason in figures.outcomes:
            store.add_outcome(run_id, app.name, mode, f"{name}:{part}" if part else name, status, reason)
        if not any(part == "" for part, _, _ in figures.outcomes):  # the scenario said how it ended itself
            store.add_outcome(run_id, app.name, mode, name, "ok")
        results[name] = figures.result


def _reference_workload(plan: Plan, reference, w: measure.Workload, wanted: prepare.Images, db_env: dict[str, str],
                        db_secret: str) -> measure.Workload:
    """Cold start's reference with the app's limits and database, in the app's namespace."""
    container = prepare.container_for(plan, reference, wanted.refs[prepare.REFERENCE], wanted.pull_policy, db_env,
                                      db_secret)
    return measure.Workload(reference.app.name, reference.mode, w.namespace, w.run_id, container,
                            reference.app.ready_path, reference.app.first_response_path, w.simulated, w.timeout_s)


def _scenario(objs: Objects, plan: Plan, name: str, w: measure.Workload, db_secret: str, driver: Driver,
              results: dict[str, object]) -> measure.Figures:
    settings = plan.settings(name)
    if name in load.SCENARIOS:
        return load.run(objs, w, name, settings, plan.repeats, driver, results)
    if name == "startup":
        return measure.startup(objs, w, settings.runs)
    if name == "scaleup":
        return measure.scaleup(objs, w, settings.runs)
    # density: a namespace of its own, whose quota is the budget (the DB and the other pods stay outside)
    dens_ns = manifests.dns_label(f"{w.namespace}-d-{w.name}")
    _create_namespace(objs, dens_ns, w.run_id, w.timeout_s)
    if db_secret:  # the Secret the app's DB_PASSWORD refers to must be in the pod's namespace
        secret = objs.cluster.core().read_namespaced_secret(db_secret, w.namespace)
        objs.create(manifests.db_secret(w.run_id, _decoded(secret.data["password"])), dens_ns)
    dense = measure.Workload(**{**w.__dict__, "namespace": dens_ns})
    try:
        return measure.density(objs, dense, settings.budget_mb, settings.max_instances)
    finally:
        with signals.shielded():
            objs.delete_namespace(dens_ns, wait_s=0)


def _decoded(value: str) -> str:
    import base64

    return base64.b64decode(value).decode()
