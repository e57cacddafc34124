"""The Kubernetes test environment: a control plane, a real node and Knative built and run on one
machine for the tests and for trying the kubernetes placement (scripts/kube-testenv.sh)."""
