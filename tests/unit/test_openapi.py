"""The OpenAPI document and the executable contract describe the same API."""

from __future__ import annotations

import re

import pytest

from perflab import contract
from perflab.paths import CONTRACT_DIR

yaml = pytest.importorskip("yaml")


def _template_matches(template: str, path: str) -> bool:
    pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
    return re.match(pattern, path) is not None


def test_every_successful_case_is_an_openapi_operation_with_that_status():
    spec = yaml.safe_load((CONTRACT_DIR / "openapi.yaml").read_text())
    for case in contract.CASES:
        if case.id.startswith(("route.", "method.")):
            continue  # unknown routes and methods are by definition not in the document
        templates = [t for t in spec["paths"] if _template_matches(t, case.path)]
        assert templates, f"{case.id}: {case.path} is not in openapi.yaml"
        operation = spec["paths"][templates[0]].get(case.method.lower())
        assert operation, f"{case.id}: {case.method} {templates[0]} is not in openapi.yaml"
        assert str(case.status) in operation["responses"], f"{case.id}: status {case.status} not documented"
