#!/usr/bin/env bash
# A real Kubernetes control plane on this machine, for trying the kubernetes placement and for the
# tests: etcd, kube-apiserver, controller manager, scheduler and kwok (simulated nodes), compiled
# once from the Go module proxy into ~/.cache/perflab/kube-testenv/ (needs Go >= 1.26).
#   scripts/kube-testenv.sh build       # compile (once; tens of minutes on two cores)
#   scripts/kube-testenv.sh up [NODES]  # start it; prints the KUBECONFIG to export; Ctrl-C stops it
# With --real-node (root): also the kubelet, and one real node that runs pods under Debian's
# containerd and runc, with kube-proxy, cluster DNS and a PostgreSQL its pods reach (build
# --real-node compiles the node's binaries). With --knative: the real node and Knative Serving on
# it (build --knative compiles Knative's components, about two minutes).
# PERFLAB_KUBE_BUILD=unoptimized builds and uses binaries compiled without optimizations (a quarter
# less CPU to build; not for figures); the default is optimized (docs/kubernetes.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/perflab" --help >/dev/null   # creates the project's virtualenv on first use
# tools/ is beside src/, outside the installed package: on the path from the checkout
PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" exec "$root/.venv/bin/python" -m tools.kubeenv.testenv "$@"
