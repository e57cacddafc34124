"""A run on a cluster, before and around the runner's steps (perflab.runner runs the same scenarios
as on one machine): what must hold before anything is created (the cluster answers, every image
is there or made, the API server accepts every object in a dry run), then for the run's length its
namespace, its database, its load driver and the placement the scenarios launch through. Whatever
happens - a failure, Ctrl-C, SIGTERM - the namespace is deleted before the lab exits, and a run
first removes what a crashed one left.

The lab reaches the database through a port-forward when it is the run's own StatefulSet (to load
the contract's rows and read its statistics); the apps reach it by its Service. A database given by
URL (`placement.postgres_url`) is reached by both at that URL.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from dataclasses import dataclass
from typing import Callable, Iterator
from urllib.parse import urlsplit, urlunsplit

from kubernetes.client.exceptions import ApiException

from perflab import isolate, registry, signals
from perflab.apps.launching import heap_opts, mode_jvm_opts
from perflab.errors import LabError
from perflab.instance import InstanceSpec
from perflab.kube import cluster as kube_cluster, coldstart as kube_coldstart, driver_image, manifests, pod_state, \
    prepare
from perflab.kube.cluster_load import ClusterLoad, DriverPod
from perflab.kube.objects import Objects, api_message
from perflab.kube.on_cluster import ClusterPlacement
from perflab.kube.relay import PortRelay
from perflab.placements import KUBERNETES
from perflab.postgres import Connection
from perflab.settings import Plan

Say = Callable[[str], None]
SIMULATED = "simulated (kwok): their pods run no container, so nothing there answers, uses memory or can be loaded"


def _runs_here(name: str) -> bool:
    scenario = registry.get(name)
    return scenario is not None and not scenario.why_not_on(KUBERNETES)


@dataclass
class Prepared:
    """What a run on a cluster settled before its first step."""

    objs: Objects
    images: prepare.Images
    environment: dict
    topology: isolate.Topology
    loads: bool  # a planned scenario sends load: the run needs its driver pod
    cold_unavailable: str = ""  # why cold start cannot be measured on this cluster ("" where it can)


def prepare_run(plan: Plan, targets: list, say: Say, apps_root=None) -> Prepared:
    """The cluster, the images and a dry run of the run's objects; raises LabError with the fix
    before anything exists on the cluster."""
    placement = plan.model.placement
    cluster = kube_cluster.connect(placement)
    objs = Objects(cluster)
    try:
        objs.remove_leftovers(say)
        cluster_env = kube_cluster.environment(cluster)
        simulated = [n["name"] for n in cluster_env["nodes"] if n["simulated"]]
        if simulated:
            raise LabError(f"no run on this cluster: node(s) {', '.join(simulated)} are {SIMULATED}",
                           fix="run on a cluster with real nodes (scripts/kube-testenv.sh --real-node gives one on this "
                               "machine); a simulated one serves the lab's dry runs and object tests only")
        for t in targets:
            if not t.unavailable and t.app.db_server == "h2":
                t.unavailable = "unavailable: on kubernetes: the app uses the lab's H2 server, which runs on this machine"
        wanted = prepare.images(plan, targets, say)
        planned = {s for t in targets if not t.unavailable for s in plan.scenarios_for(t.mode, t.default_mode)
                   if _runs_here(s)}
        loads = any(registry.get(s).sends_load for s in planned)
        if loads:
            prepare.driver(wanted, placement, say)
        cold_why = ""
        if "coldstart" in planned:  # through Knative, against its reference (the Go reference) there too
            cold_why = kube_coldstart.unavailable(objs)
            found = prepare.reference(wanted, plan, apps_root, say) if not cold_why else None
            if isinstance(found, str):
                cold_why = found.removeprefix("on kubernetes: ")
            elif found is not None:
                wanted.refs.setdefault(found.label, wanted.refs[prepare.REFERENCE])
        if wanted.tarballs:
            missing = prepare.missing_on_nodes(objs.cluster.core().list_node().items, wanted)
            if missing:
                raise LabError(f"the nodes lack the run's images: {', '.join(missing)}",
                               fix=prepare.load_instructions(wanted))
        prepare.dry_run(objs, _rendered(plan, targets, wanted, loads, cold=not cold_why and "coldstart" in planned))
    except ApiException as exc:  # e.g. 403: the user lacks a permission the lab needs
        raise LabError(f"the API server refused a request of the lab: {api_message(exc)}",
                       fix="the lab needs the ClusterRole shown in docs/kubernetes.md" if exc.status == 403 else None) \
            from None
    env = {"kind": KUBERNETES, **cluster_env, "images": wanted.refs}
    return Prepared(objs, wanted, env, _topology(env, placement), loads, cold_why)


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


def _rendered(plan: Plan, targets: list, wanted: prepare.Images, loads: bool,
              cold: bool) -> list[manifests.Manifest]:
    """Every kind of object the run creates, as it will create them."""
    placement, run_id = plan.model.placement, prepare.DRY_RUN_ID
    bodies = [manifests.namespace(f"{placement.namespace}-{run_id}", run_id, "dry-run"),
              manifests.db_secret(run_id, "dry-run")]
    if not placement.postgres_url:
        bodies += manifests.postgres(run_id, placement.postgres_image)
    db_env = (Connection.from_url(placement.postgres_url).app_env() if placement.postgres_url
              else manifests.db_env_in_namespace(f"{placement.namespace}-{run_id}"))
    for t in targets:
        if t.unavailable:
            continue
        pod = container_for_plan(plan, t, wanted.refs[t.label], wanted.pull_policy, db_env)
        name = manifests.workload_name(t.app.name, t.mode)
        bodies.append(manifests.app_pod(f"{name}-i1", run_id, pod, name))
        if cold:
            bodies.append(manifests.knative_service(manifests.dns_label(f"cold-{name}"), run_id, pod))
        if "density" in plan.scenarios_for(t.mode, t.default_mode):  # its quota, in a namespace of its own
            bodies.append(manifests.resource_quota(run_id, plan.settings("density").budget_mb))
    if loads:
        bodies.append(manifests.driver_pod(f"driver-{run_id}", run_id, image=wanted.refs[driver_image.LABEL],
                                           pull_policy=wanted.pull_policy, apart=placement.driver_apart))
    return bodies


def _topology(env: dict, placement) -> isolate.Topology:
    """How the run is placed, in the words the summary and report print (no CPUs of this machine)."""
    nodes = env["nodes"]
    where = (f"kubernetes context {env['context']}, {len(nodes)} node(s): a pod per instance, the load driver in a "
             f"pod {'on another node' if placement.driver_apart else 'on any node'}, the DB "
             f"{'at the plan URL' if placement.postgres_url else 'as a StatefulSet in the run namespace'}")
    return isolate.Topology(app=[], db=[], driver=[], app_exclusive=False, shared=[], reductions=[],
                            description=where)


@dataclass
class Grounds:
    """What the run holds on the cluster while it lasts."""

    namespace: str
    db: Connection  # the lab's way to the database
    placement: ClusterPlacement


@contextlib.contextmanager
def grounds(prep: Prepared, plan: Plan, run_id: str, say: Say) -> Iterator[Grounds]:
    """The run's namespace, database, driver pod and placement; all deleted on leaving."""
    placement = plan.model.placement
    objs = prep.objs
    namespace = f"{placement.namespace}-{run_id}"
    closing: list[Callable[[], None]] = []
    try:
        objs.create_namespace(namespace, run_id, min(placement.timeout_s, 60))
        lab_db, apps_db = _database(objs, namespace, run_id, placement, closing)
        load = None
        if prep.loads:
            driver = DriverPod(objs, namespace, run_id, prep.images.refs[driver_image.LABEL], prep.images.pull_policy,
                               apart=placement.driver_apart, timeout_s=placement.timeout_s)
            closing.append(driver.stop)
            load = ClusterLoad(driver.start())
            say(f"load driver: pod {driver.name} on node {driver.node}")
        images = prep.images

        def container_for(spec: InstanceSpec) -> dict:
            return container(spec.app, spec.mode, cpus=spec.limits.cpu_quota, memory_mb=spec.limits.memory_mb,
                             jvm_opts=spec.jvm_opts, image=images.refs[f"{spec.app.name}/{spec.mode}"],
                             pull_policy=images.pull_policy, db_env=pod_db_env(spec.db_env, lab_db, apps_db))

        yield Grounds(namespace, lab_db, ClusterPlacement(objs, namespace, run_id, container_for, load,
                                                          placement.timeout_s, prep.cold_unavailable))
    finally:
        with signals.shielded():
            for close in reversed(closing):
                with contextlib.suppress(Exception):
                    close()
            delete_run(objs, run_id, say)


def container(app, mode: str, *, cpus: float, memory_mb: int, jvm_opts: list[str], image: str, pull_policy: str,
              db_env: dict[str, str]) -> dict:
    """The pod's container for an instance of `app` in `mode`: the image, the limits, the JVM's options
    (a native executable that takes heap sizes on its command line gets them as arguments), the database."""
    m = app.modes[mode]
    args = heap_opts(jvm_opts) if not m.is_jvm and "{heap_opts}" in m.command else []
    return manifests.app_container(image=image, cpus=cpus, memory_mb=memory_mb, jvm_opts=list(jvm_opts) if m.is_jvm else [],
                                   db_env=db_env, ready_path=app.ready_path, mode=mode, db_secret=manifests.POSTGRES,
                                   mode_env=m.env, pull_policy=pull_policy, args=args)


def container_for_plan(plan: Plan, target, image: str, pull_policy: str, db_env: dict[str, str]) -> dict:
    """The container an instance of `target` (an app/mode) gets under the plan's limits, as the run's
    instances get it (perflab.lab.Lab.spec): what the dry run renders."""
    limits, app = plan["limits"], target.app.for_mode(target.mode)
    return container(app, target.mode, cpus=float(limits["cpus"]), memory_mb=limits["memory_mb"],
                     jvm_opts=mode_jvm_opts(app.mode(target.mode), limits), image=image, pull_policy=pull_policy,
                     db_env=db_env)


_JDBC = re.compile(r"^jdbc:postgresql://([^/:]+):(\d+)/(.+)$")


def pod_db_env(env: dict[str, str], lab_db: Connection, apps_db: tuple[str, int]) -> dict[str, str]:
    """An instance's database variables as a pod reaches the database: where the lab goes through a
    port-forward, the pod goes to the Service (the database's name, e.g. an app's own, unchanged)."""
    found = _JDBC.match(env.get("DB_URL", ""))
    if not found or (found.group(1), int(found.group(2))) != (lab_db.host, lab_db.port):
        return env
    host, port = apps_db
    return {**env, "DB_URL": f"jdbc:postgresql://{host}:{port}/{found.group(3)}"}


def delete_run(objs: Objects, run_id: str, say: Say) -> None:
    core = objs.cluster.core()
    for ns in core.list_namespace(label_selector=manifests.run_selector(run_id)).items:
        if not objs.delete_namespace(ns.metadata.name):
            say(f"warning: namespace {ns.metadata.name} is still terminating; delete it with "
                f"kubectl delete namespace {ns.metadata.name}")


def _database(objs: Objects, namespace: str, run_id: str, placement,
              closing: list) -> tuple[Connection, tuple[str, int]]:
    """(the lab's connection, where the pods reach it): the user's URL, or the run's PostgreSQL
    StatefulSet through a port-forward. Either way its password is in the run's Secret, never in a
    pod's spec."""
    if placement.postgres_url:
        given = Connection.from_url(placement.postgres_url)
        objs.create(manifests.db_secret(run_id, given.password), namespace)
        return given, (given.host, given.port)
    password = secrets.token_urlsafe(18)
    objs.create(manifests.db_secret(run_id, password), namespace)
    for body in manifests.postgres(run_id, placement.postgres_image):
        objs.create(body, namespace)
    try:
        pod, state = objs.watch_pods(namespace, f"{manifests.WORKLOAD}={manifests.POSTGRES}", pod_state.settled,
                                     placement.timeout_s)
    except TimeoutError:
        raise LabError(f"the run's PostgreSQL pod was not ready within placement.timeout_s = "
                       f"{placement.timeout_s:g} s", fix=f"check its image ({placement.postgres_image}) and the "
                       "cluster's events, or give placement.postgres_url") from None
    if state != "ready":
        raise pod_state.not_ready(pod, state, "the run's PostgreSQL")
    relay = PortRelay(objs.cluster, namespace, pod.metadata.name, manifests.DB_PORT).start()
    closing.append(relay.close)
    lab = Connection("127.0.0.1", relay.local_port, manifests.DB_NAME, manifests.DB_USER, password)
    return lab, (f"{manifests.POSTGRES}.{namespace}.svc", manifests.DB_PORT)
