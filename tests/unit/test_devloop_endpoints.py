"""The new-endpoint edit of every app with a scripted edit: a new file in the app's own idiom (and,
for Go, the route that wires it); the Go one is compiled in tests/lab/test_devloop_endpoints.py."""

from __future__ import annotations

import re

import pytest

from perflab import apps
from perflab.devloop import edits
from perflab.devloop.roundtrip import EDITS, MIXED_EDIT


def test_every_app_with_scripted_edits_gets_a_new_endpoint_and_only_quarkus_the_mixed_file():
    assert set(edits.ENDPOINT) == set(edits.HELLO)
    assert {name for name, e in edits.ENDPOINT.items() if e.edit == MIXED_EDIT} == {"quarkus"}
    assert {e.edit for e in edits.ENDPOINT.values()} <= set(EDITS)  # named as the figures and the step table know


@pytest.mark.parametrize("name", sorted(edits.ENDPOINT))
def test_each_new_endpoint_is_a_new_file_answering_its_paths_with_the_tag(name):
    endpoint, app = edits.ENDPOINT[name], apps.get(name)
    assert not (app.dir / endpoint.file).exists()
    routes = endpoint.source + (endpoint.wiring[2] if endpoint.wiring else "")
    for path, text in endpoint.shows.items():
        assert "TAG" in text and text in endpoint.source
        assert f'"{path}"' in routes or f'"{path.rsplit("/", 1)[1]}"' in routes  # the path it serves is mapped
    if endpoint.file.endswith(".java"):
        package = re.search(r"^package ([\w.]+);", endpoint.source, re.M).group(1)
        assert endpoint.file.rsplit("/", 1)[0].endswith(package.replace(".", "/"))
        assert f"public class {endpoint.file.rsplit('/', 1)[1].removesuffix('.java')} " in endpoint.source
    if endpoint.wiring is not None:
        file, old, new = endpoint.wiring
        assert (app.dir / file).read_text().count(old) == 1 and old in new
