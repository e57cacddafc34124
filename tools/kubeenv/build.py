"""Building a real Kubernetes control plane from source through the Go module proxy.

Tests (and anyone without a cluster) get a genuine etcd, kube-apiserver, controller manager,
scheduler and kwok (simulated nodes) without a container engine or a downloaded release: the sources come from the Go module
proxy and are compiled once per machine into ``${XDG_CACHE_HOME:-~/.cache}/perflab/kube-testenv``.
A second call finds the binaries and returns at once.

Two builds of one release (``PERFLAB_KUBE_BUILD``): ``optimized``, the compiler's defaults, which any
figure measured on this control plane needs (the default); ``unoptimized`` (``-gcflags=all=-N -l``:
no optimization, no inlining), which costs about a quarter less CPU to build and serves the tests,
which check what happens and not how fast; ``either``, what the test suite asks for: the optimized
build if this machine has one, else the unoptimized one. Each has a directory of its own, and the
unoptimized binaries say so in their version (``v1.37.2+unoptimized``), which the API server answers
and the lab records with a run. The build is niced and runs one package at
a time (``-p=1``) because it shares the machine (expect tens of minutes on two cores); on a machine
of its own (``CI=true``, or ``PERFLAB_BUILD_JOBS=N``) it compiles on every CPU. The binaries carry
no symbol table or debug information (``-s -w``): they are tools, and linking them is faster.

Run it by hand with ``python -m tools.kubeenv.build`` (``scripts/kube-testenv.sh build`` does the same).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from perflab.drivers.install import Log, cache_dir, exclusive_lock, say

# kube-apiserver 1.37 pins etcd 3.7.0 and both want Go >= 1.26; kwok 0.8 is built against 0.36.
KUBERNETES_VERSION = "v1.37.2"
# kwok is built inside the control plane's module, against its k8s.io libraries (tidy raises three
# small utility modules that kwok needs newer), so that it reuses their compiled packages: 189 s of
# CPU in a module of its own, 20 s there
KWOK_VERSION = "v0.8.0"
KWOK_STAGES_FILE = "kwok-stages.yaml"  # beside the binaries: a build is complete with it
FLAVOUR_ENV = "PERFLAB_KUBE_BUILD"
FLAVOURS = ("optimized", "unoptimized")
NO_OPTIMIZATION = "-gcflags=all=-N -l"
MIN_GO = (1, 26)

# k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with directories of
# its own repository; a module that depends on it must point each one at the published v0.x tag.
STAGING_MODULES = (
    "api", "apiextensions-apiserver", "apimachinery", "apiserver", "cli-runtime", "client-go",
    "cloud-provider", "cluster-bootstrap", "code-generator", "component-base", "component-helpers",
    "controller-manager", "cri-api", "cri-client", "cri-streaming", "csi-translation-lib",
    "dynamic-resource-allocation", "endpointslice", "externaljwt", "kms", "kube-aggregator",
    "kube-controller-manager", "kube-proxy", "kube-scheduler", "kubectl", "kubelet", "metrics",
    "mount-utils", "pod-security-admission", "sample-apiserver", "streaming",
)

# a Deployment needs the controller manager (ReplicaSets, pods) and the scheduler (placement);
# kwok plays the kubelets of simulated nodes
BINARIES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")
KUBE_COMMANDS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler")


class BuildFailed(RuntimeError):
    """The control plane could not be built; the message says which step and where its log is."""


def asked_flavour() -> str:
    asked = os.environ.get(FLAVOUR_ENV, "").strip() or "optimized"
    if asked not in (*FLAVOURS, "either"):
        raise BuildFailed(f"{FLAVOUR_ENV} must be one of optimized, unoptimized or either, got {asked!r}")
    return asked


def flavour() -> str:
    """The build in use: the one asked for, or for "either" the optimized one when it is built."""
    asked = asked_flavour()
    if asked != "either":
        return asked
    return "optimized" if _complete(_flavour_root("optimized")) else "unoptimized"


def _flavour_root(name: str) -> Path:
    suffix = "" if name == "optimized" else f"-{name}"
    return cache_dir() / "kube-testenv" / f"{KUBERNETES_VERSION}{suffix}"


def _complete(where: Path) -> bool:
    return all((where / "bin" / name).is_file() for name in (*BINARIES, KWOK_STAGES_FILE))


def root() -> Path:
    return _flavour_root(flavour())


def binary(name: str) -> Path:
    return root() / "bin" / name


# kwok ships what its simulated kubelets do as Stage documents in its module; it reads them with
# --config. These: nodes turn Ready and keep heart-beating; pods turn Ready, Jobs' pods complete,
# deleted pods go away.
KWOK_STAGES = ("node/fast/node-initialize.yaml", "node/heartbeat/node-heartbeat.yaml",
               "pod/fast/pod-ready.yaml", "pod/fast/pod-complete.yaml", "pod/fast/pod-delete.yaml")


def kwok_stages() -> Path:
    return root() / "bin" / KWOK_STAGES_FILE


def built() -> bool:
    return _complete(root())


def _staging_version() -> str:
    return "v0." + KUBERNETES_VERSION.split(".", 1)[1]


def go_mod() -> str:
    replaces = "\n".join(f"\tk8s.io/{m} => k8s.io/{m} {_staging_version()}" for m in STAGING_MODULES)
    return (f"module perflab.test/kubetestenv\n\ngo 1.26.0\n\n"
            f"require (\n\tk8s.io/kubernetes {KUBERNETES_VERSION}\n\tsigs.k8s.io/kwok {KWOK_VERSION}\n)\n\n"
            f"replace (\n{replaces}\n)\n")


# tidy keeps only what the module imports: name the main packages it will build
TOOLS_GO = """//go:build tools

package tools

import (
\t_ "go.etcd.io/etcd/server/v3/etcdmain"
\t_ "k8s.io/kubernetes/cmd/kube-apiserver"
\t_ "k8s.io/kubernetes/cmd/kube-controller-manager"
\t_ "k8s.io/kubernetes/cmd/kube-scheduler"
\t_ "k8s.io/kubernetes/cmd/kubelet"
\t_ "k8s.io/kubernetes/cmd/kube-proxy"
\t_ "sigs.k8s.io/kwok/cmd/kwok"
)
"""

# etcd's own main package lives in a module full of local replaces; its entry point is one call
ETCD_MAIN = """package main

import (
\t"os"

\t"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
"""


def _version_stamp() -> str:
    """Linker flags that give the binaries their release's version (/version answers it; a module
    build otherwise says v0.0.0-master), without symbols or DWARF (-s -w: a faster link)."""
    major, minor = KUBERNETES_VERSION.lstrip("v").split(".")[:2]
    pkg = "k8s.io/component-base/version"
    version = KUBERNETES_VERSION if flavour() == "optimized" else f"{KUBERNETES_VERSION}+{flavour()}"
    return " ".join(["-s", "-w"] + [f"-X {pkg}.{key}={value}" for key, value in (
        ("gitVersion", version), ("gitMajor", major), ("gitMinor", minor), ("gitTreeState", "clean"))])


def build_jobs() -> int:
    """Packages compiled at once: 1 on a shared host (the default), every CPU on a machine of its own
    (CI=true), or PERFLAB_BUILD_JOBS."""
    given = os.environ.get("PERFLAB_BUILD_JOBS", "").strip()
    if given:
        if not given.isdigit() or int(given) < 1:
            raise BuildFailed(f"PERFLAB_BUILD_JOBS must be a whole number of at least 1, got {given!r}")
        return int(given)
    on_ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    return (os.cpu_count() or 1) if on_ci else 1


def go_env(*flags: str) -> dict[str, str]:
    """The environment of every compile: GOTOOLCHAIN=local (never fetch another Go), no cgo,
    build_jobs() packages at a time, and the flavour's compiler flags."""
    flavoured = [f'"{NO_OPTIMIZATION}"'] if flavour() == "unoptimized" else []  # quoted: it holds a space
    return dict(os.environ, GOTOOLCHAIN="local", GOFLAGS=" ".join([*flags, *flavoured, f"-p={build_jobs()}"]),
                CGO_ENABLED="0")


def check_go() -> str:
    go = shutil.which("go")
    if go is None:
        raise BuildFailed("Go is not installed: the test control plane is compiled from source "
                          f"(needs Go >= {MIN_GO[0]}.{MIN_GO[1]}; https://go.dev/dl/ or apt-get install golang)")
    out = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True).stdout.strip()
    try:
        major, minor = (int(part) for part in out.removeprefix("go").split(".")[:2])
    except ValueError:
        raise BuildFailed(f"could not read the Go version from 'go env GOVERSION' ({out!r})") from None
    if (major, minor) < MIN_GO:
        raise BuildFailed(f"{out} is too old to build kube-apiserver {KUBERNETES_VERSION}: "
                          f"needs Go >= {MIN_GO[0]}.{MIN_GO[1]}")
    return go


def run_step(step: str, cmd: list[str], cwd: Path, env: dict[str, str], log_path: Path, log: Log) -> None:
    log(f"kube test env: {step} ...")
    started = time.monotonic()
    cpu_before = _children_cpu_s()
    with open(log_path, "a") as out:
        out.write(f"\n$ {' '.join(cmd)}\n")
        out.flush()
        done = subprocess.run(["nice", "-n", "19", *cmd], cwd=cwd, env=env, stdout=out,
                              stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise BuildFailed(f"kube test env: {step} failed (exit {done.returncode}); see {log_path}")
    # the CPU time tells what a step costs; its wall time depends on what else shares the machine
    log(f"kube test env: {step} done in {time.monotonic() - started:.0f} s "
        f"({_children_cpu_s() - cpu_before:.0f} s of CPU)")


def _children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def build(log: Log = say) -> Path:
    """Build the control plane's binaries once; return the directory holding them."""
    if built():
        return root() / "bin"
    go = check_go()
    with exclusive_lock(cache_dir() / "locks" / "kube-testenv.lock"):
        if built():
            return root() / "bin"
        src = root() / "src"
        (src / "etcd").mkdir(parents=True, exist_ok=True)
        (root() / "bin").mkdir(parents=True, exist_ok=True)
        (src / "go.mod").write_text(go_mod())
        (src / "tools.go").write_text(TOOLS_GO)
        (src / "etcd" / "main.go").write_text(ETCD_MAIN)
        log_path = root() / "build.log"
        env = go_env()
        log(f"kube test env: building Kubernetes {KUBERNETES_VERSION} control plane ({flavour()}) from the Go "
            f"module proxy into {root()} (once per machine; log: {log_path})")
        started = time.monotonic()
        run_step("resolving modules", [go, "mod", "tidy"], src, env, log_path, log)
        packages = ([("etcd", "./etcd")] + [(c, f"k8s.io/kubernetes/cmd/{c}") for c in KUBE_COMMANDS]
                    + [("kwok", "sigs.k8s.io/kwok/cmd/kwok")])
        for name, package in packages:
            if not binary(name).is_file():
                run_step(f"compiling {name}",
                         [go, "build", "-ldflags", _version_stamp(), "-o", str(binary(name)), package],
                         src, env, log_path, log)
        if not kwok_stages().is_file():
            _write_kwok_stages(go, env)
        log(f"kube test env: built in {time.monotonic() - started:.0f} s")
    return root() / "bin"


def _write_kwok_stages(go: str, env: dict[str, str]) -> None:
    modcache = subprocess.run([go, "env", "GOMODCACHE"], env=env, capture_output=True, text=True).stdout.strip()
    stages = Path(modcache) / f"sigs.k8s.io/kwok@{KWOK_VERSION}" / "kustomize" / "stage"
    missing = [name for name in KWOK_STAGES if not (stages / name).is_file()]
    if missing:
        raise BuildFailed(f"kwok's stage files {', '.join(missing)} are not in {stages}")
    kwok_stages().write_text("\n---\n".join((stages / name).read_text() for name in KWOK_STAGES))


# Knative Serving's Go module carries its CRDs (config/core/300-resources): the tests install the
# Service's to check the lab's Knative Service against Knative's own schema
KNATIVE_SERVING_VERSION = "v0.51.0"


def module_dir(go: str, module: str) -> Path:
    """A module's source directory (module@version), downloaded once into Go's module cache."""
    import json

    env = dict(os.environ, GOTOOLCHAIN="local", GOFLAGS="-mod=mod")
    done = subprocess.run([go, "mod", "download", "-json", module], capture_output=True, text=True, env=env,
                          cwd=cache_dir())
    try:
        found = json.loads(done.stdout)
    except ValueError:
        raise BuildFailed(f"go mod download {module} failed: {(done.stderr or done.stdout).strip()[-500:]}") from None
    if not found.get("Dir"):
        raise BuildFailed(f"go mod download {module}: {found.get('Error', 'no directory')}")
    return Path(found["Dir"])


def knative_service_crd() -> Path:
    """Knative Serving's Service CRD, from its module on the Go module proxy (downloaded once)."""
    module = f"knative.dev/serving@{KNATIVE_SERVING_VERSION}"
    crd = module_dir(check_go(), module) / "config" / "core" / "300-resources" / "service.yaml"
    if not crd.is_file():
        raise BuildFailed(f"{module}: no {crd}")
    return crd


# A real node (tools.kubeenv.node): the kubelet and kube-proxy of the same release, the cluster's
# DNS (CoreDNS, a module of its own), and a pod sandbox's "pause" process. The sandbox image of a
# real cluster (registry.k8s.io/pause) is out of reach here: the lab writes its own, one static
# binary that waits for a signal and exits.
NODE_BINARIES = ("kubelet", "kube-proxy", "coredns", "pause")
COREDNS_VERSION = "v1.15.0"
# CoreDNS with the plugins the node's Corefile uses (tools.kubeenv.node), not its default set, whose
# cloud providers' SDKs made much of its compile; in a module of its own, so that its dependencies
# keep the versions CoreDNS chose and the control plane's keep Kubernetes'
COREDNS_PLUGINS = ("bind", "cache", "errors", "forward", "kubernetes")
COREDNS_MAIN = """package main

import (
\t"github.com/coredns/coredns/coremain"
%s
)

func main() { coremain.Run() }
""" % "\n".join(f'\t_ "github.com/coredns/coredns/plugin/{name}"' for name in COREDNS_PLUGINS)
PAUSE_GO = """package main

import (
\t"os"
\t"os/signal"
\t"syscall"
)

func main() {
\tdone := make(chan os.Signal, 1)
\tsignal.Notify(done, syscall.SIGINT, syscall.SIGTERM)
\t<-done
}
"""


def node_built() -> bool:
    return all(binary(name).is_file() for name in NODE_BINARIES)


def build_node(log: Log = say) -> Path:
    """The control plane (build()) and a real node's binaries: kubelet, and the pause process.
    With the control plane's packages compiled, the kubelet takes a minute or two."""
    build(log)
    if node_built():
        return root() / "bin"
    go = check_go()
    with exclusive_lock(cache_dir() / "locks" / "kube-testenv.lock"):
        if node_built():
            return root() / "bin"
        src = root() / "src"
        (src / "go.mod").write_text(go_mod())
        (src / "tools.go").write_text(TOOLS_GO)
        (src / "pause").mkdir(exist_ok=True)
        (src / "pause" / "main.go").write_text(PAUSE_GO)
        log_path = root() / "build.log"
        env = go_env()
        run_step("resolving the kubelet's modules", [go, "mod", "tidy"], src, env, log_path, log)
        for command in ("kubelet", "kube-proxy"):
            if not binary(command).is_file():
                run_step(f"compiling {command}", [go, "build", "-ldflags", _version_stamp(), "-o",
                                                  str(binary(command)), f"k8s.io/kubernetes/cmd/{command}"],
                         src, env, log_path, log)
        if not binary("coredns").is_file():
            coredns = root() / "coredns"
            coredns.mkdir(exist_ok=True)
            (coredns / "go.mod").write_text(f"module perflab.test/coredns\n\ngo 1.26.0\n\n"
                                            f"require github.com/coredns/coredns {COREDNS_VERSION}\n")
            (coredns / "main.go").write_text(COREDNS_MAIN)
            run_step("resolving coredns's modules", [go, "mod", "tidy"], coredns, env, log_path, log)
            run_step("compiling coredns", [go, "build", "-trimpath", "-o", str(binary("coredns")), "."], coredns,
                     env, log_path, log)
        run_step("compiling pause", [go, "build", "-o", str(binary("pause")), "./pause"], src, env, log_path, log)
    return root() / "bin"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        print(build_node() if "--node" in argv else build())
    except BuildFailed as exc:
        print(f"perflab: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
