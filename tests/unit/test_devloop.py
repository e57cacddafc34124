"""devloop's own logic: where an error output points, and the working copy: edits never reach the
tracked files and the copy goes on every way out (the copies of killed and interrupted runs, and
dev mode over HTTP, with real processes: tests/lab/test_devloop_copies.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from perflab import apps
from perflab.devloop import edits, workcopy
from perflab.errors import LabError


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and "target" not in p.relative_to(root).parts and p.name != "go-reference":
            h.update(str(p.relative_to(root)).encode() + p.read_bytes())
    return h.hexdigest()


def test_the_meaningful_line_is_the_first_naming_the_file_with_a_line_number():
    out = "[INFO] building\n[ERROR] COMPILATION ERROR :\n[ERROR] /x/HelloResource.java:[21,16] cannot find symbol\n"
    assert edits.where_it_points(out, "src/main/java/dev/perflab/HelloResource.java") == 3
    assert edits.where_it_points("./handlers.go:75:22: undefined: x", "handlers.go") == 1
    assert edits.where_it_points("see HelloResource.java for details", "HelloResource.java") is None


@pytest.mark.parametrize("name", sorted(edits.HELLO))
def test_every_scripted_edit_matches_its_tracked_file_once(name):
    hello = edits.HELLO[name]
    text = (apps.get(name).dir / hello.file).read_text()
    assert text.count(hello.text) == 1
    old, new, shown = hello.changed("x 1")
    assert shown in new and shown not in text


@pytest.mark.parametrize("name", sorted(edits.FRUITS))
def test_every_ordering_edit_matches_its_tracked_file_once(name):
    file, old, new = edits.FRUITS[name]
    assert (apps.get(name).dir / file).read_text().count(old) == 1


def test_the_order_of_the_seed_fruits_is_read_from_the_body():
    assert edits.descending('[{"id":1,"name":"Cherry"},{"id":3,"name":"Banana"},{"id":2,"name":"Apple"}]') is True
    assert edits.descending('[{"id":2,"name":"Apple"},{"id":1,"name":"Cherry"}]') is False
    assert edits.descending('{"status":500,"error":"x"}') is None


def test_edits_go_to_the_copy_only_and_the_copy_is_removed(workdir):
    app = apps.get("go-reference")
    before = tree_digest(app.dir)
    hello = edits.HELLO["go-reference"]
    with workcopy.WorkingCopy(app) as wc:
        root = wc.root
        old, new, shown = hello.changed("t 1")
        wc.edit(hello.file, old, new)
        assert shown in (wc.app.dir / hello.file).read_text()
        assert shown not in (app.dir / hello.file).read_text()
        assert (root / "mvnw").exists()
    assert not root.exists()
    assert tree_digest(app.dir) == before


def test_an_edit_whose_text_is_gone_is_a_clear_error(workdir):
    with workcopy.WorkingCopy(apps.get("go-reference")) as wc:
        with pytest.raises(LabError, match="exactly once"):
            wc.edit("handlers.go", "no such text", "x")
