"""Tools around the lab that are not part of it (the Kubernetes test environment)."""
