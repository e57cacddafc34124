"""Every third-party package the lab imports is declared in pyproject.toml's dependencies (not
only reached through another package, nor only in the test extras)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imported_top_level_modules(folder: Path) -> set[str]:
    found = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_package_of_the_lab_is_a_declared_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_normalised(re.split(r"[<>=\[ ;]", spec)[0]) for spec in project["dependencies"]}
    third_party = _imported_top_level_modules(ROOT / "src" / "perflab") - set(sys.stdlib_module_names) - {"perflab"}
    assert third_party, "no third-party import found: the scan is broken"
    distributions = packages_distributions()
    undeclared = {module: distributions.get(module, ["(not installed)"]) for module in sorted(third_party)
                  if not {_normalised(d) for d in distributions.get(module, [])} & declared}
    assert not undeclared, f"imported but not in [project] dependencies: {undeclared}"
