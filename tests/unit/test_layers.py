"""The layer contract (.importlinter): the package keeps to it, its layers name whole packages (or
top-level modules), every module stands in a layer, an upward import breaks it, and no import cycle
exists, within a layer either. Checked in-process through import-linter's own API and grimp's graph
(no `lint-imports` run)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import grimp
import pytest
from importlinter import configuration
from importlinter.application import use_cases

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / ".importlinter"

configuration.configure()  # import-linter's readers and contract types, as its command line sets them up


def _kept(config: Path) -> bool:
    return use_cases.lint_imports(str(config), cache_dir=None, no_logo=True) == use_cases.SUCCESS


def _layer_modules(config_text: str) -> list[str]:
    block = re.search(r"^layers =\n((?:[ \t]+\S.*\n)+)", config_text, re.M).group(1)
    return [m.strip() for line in block.splitlines() if not line.strip().startswith(";")
            for m in re.split(r"[:|]", line)]


def _ignored_imports(config_text: str) -> list[tuple[str, str]]:
    found = re.search(r"^ignore_imports =\n((?:[ \t]+\S.*\n?)+)", config_text, re.M)
    block = found.group(1) if found else ""
    return [tuple(part.strip() for part in line.split("->")) for line in block.splitlines() if "->" in line]


def _cycles(package: str, config: Path) -> list[list[str]]:
    """The import loops, one per direct import A -> B that B leads back from: [A, B, ..., A]. The
    upward imports the contract names are left out (they are listed there to be removed)."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=True, cache_dir=None)
    for importer, imported in _ignored_imports(config.read_text()):
        graph.remove_import(importer=importer, imported=imported)
    loops = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back:
                loops.append([importer, *back])
    return loops


def _copy_as(tmp_path: Path, name: str) -> Path:
    """The package and its contract under another name, so the copy is analysed, not the package
    this test process has imported already."""
    pkg = tmp_path / name
    shutil.copytree(ROOT / "src" / "perflab", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    for py in pkg.rglob("*.py"):
        py.write_text(re.sub(r"\bperflab\b", name, py.read_text()))
    config = tmp_path / ".importlinter"
    config.write_text(re.sub(r"\bperflab\b", name, CONTRACT.read_text()))
    return config


def test_the_package_keeps_its_layers():
    assert _kept(CONTRACT), "the imports that break it are printed above (or run `lint-imports`)"


def test_every_module_stands_in_a_layer():
    """A new top-level module must be placed; a module inside a package stands in its package's layer.
    Only the package's own face stays out."""
    layers = _layer_modules(CONTRACT.read_text())
    graph = grimp.build_graph("perflab", cache_dir=None)
    placed = [m for m in graph.modules if any(m == layer or m.startswith(layer + ".") for layer in layers)]
    assert sorted(set(graph.modules) - set(placed) - {"perflab"}) == []


def test_the_layers_name_packages_whole():
    """A layer names a package (or a top-level module), never a module inside a package: a package
    stands in one layer, and its modules in no other."""
    assert [m for m in _layer_modules(CONTRACT.read_text()) if m.count(".") != 1] == []


def test_no_module_imports_itself_back():
    assert _cycles("perflab", CONTRACT) == []


@pytest.fixture
def copied(tmp_path, monkeypatch):
    name = "perflab_layers_copy"
    config = _copy_as(tmp_path, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path / name, config
    for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[module]


def test_an_upward_import_breaks_the_contract(copied, capsys):
    pkg, config = copied
    assert _kept(config)  # the copy itself keeps the layers, as the package does
    # the model layer reaching up to the command line
    (pkg / "paths.py").write_text((pkg / "paths.py").read_text() + f"\nfrom {pkg.name} import cli  # noqa\n")
    capsys.readouterr()
    assert not _kept(config)
    assert f"{pkg.name}.paths -> {pkg.name}.cli" in capsys.readouterr().out


def test_a_cycle_within_one_layer_is_found(copied):
    pkg, config = copied
    assert _cycles(pkg.name, config) == []
    # paths and errors stand in one layer, so the contract allows either to import the other, not both
    (pkg / "errors.py").write_text((pkg / "errors.py").read_text() + f"\nfrom {pkg.name} import paths  # noqa\n")
    (pkg / "paths.py").write_text((pkg / "paths.py").read_text() + f"\nfrom {pkg.name} import errors  # noqa\n")
    assert [f"{pkg.name}.errors", f"{pkg.name}.paths", f"{pkg.name}.errors"] in _cycles(pkg.name, config)
    assert _kept(config)
