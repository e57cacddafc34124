"""KT-2020's Kotlin services, built and started for real against the lab's H2 over TCP, in both
variants: they pass the blog's API check (found, not found, posted, bad bodies 4xx, a quote and
SQL in the data round-trip as data), and the as-published variant really re-creates its table on
every POST and serialises its calls (its own per-connection pool lines never show two connections
out at once under concurrent load), while the fixed one keeps its rows."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from perflab import apps, h2, kt2020_api, procs
from perflab.paths import apps_dir

pytestmark = pytest.mark.slow

VARIANTS = [("kt2020-quarkus", "as-published"), ("kt2020-quarkus", "fixed"),
            ("kt2020-spring", "as-published"), ("kt2020-spring", "fixed")]
# the pool's busy connections in each as-published line: Agroal's metrics, Spring's Hikari figures
ACTIVE = re.compile(r"(\d+) active \||active=(\d+)")


@pytest.fixture(scope="module")
def h2_server(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PERFLAB_WORKDIR", str(tmp_path_factory.mktemp("work")))  # never the user's lab state
        server = h2.Server(log=lambda _: None)
        server.start()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture(scope="module")
def built():
    found = apps.discover(apps_dir())
    for name in ("kt2020-quarkus", "kt2020-spring"):
        apps.build(found[name], log=lambda _: None)
    return found


@pytest.fixture(params=VARIANTS, ids=lambda v: "/".join(v))
def running(request, built, h2_server, tmp_path):
    app, mode = built[request.param[0]], request.param[1]
    h2_server.seed()
    env = {**h2_server.conn.app_env(), "DB_POOL_MIN": "10", "DB_POOL_MAX": "100"}
    inst = apps.launch(app, mode, port=procs.free_port(), db_env=env, log_path=tmp_path / "app.log")
    try:
        apps.wait_ready(inst, timeout=240)
        yield inst
    finally:
        inst.stop()
    assert not procs.group_alive(inst.proc.pid)


def test_passes_the_blogs_api_check(running):
    assert kt2020_api.verify(running.base_url) == []
    # the check leaves the seed row readable for the next launch
    assert kt2020_api.get(running.base_url, kt2020_api.SEED).status == 200


def test_ddl_on_every_post_only_as_published(running):
    assert kt2020_api.post_data(running.base_url, "first").status == 201
    assert kt2020_api.post_data(running.base_url, "second").status == 201
    first, seed = (kt2020_api.get(running.base_url, v).status for v in ("first", kt2020_api.SEED))
    if running.mode == "as-published":
        assert (first, seed) == (404, 404)  # the table was dropped and re-created by the next POST
    else:
        assert (first, seed) == (200, 200)


def test_as_published_serialises_its_calls_under_concurrent_load(running):
    def client(i: int) -> list[int]:
        out = []
        for j in range(5):
            out.append(kt2020_api.post_data(running.base_url, f"c{i}-{j}").status)
            out.append(kt2020_api.get(running.base_url, f"c{i}-{j}").status)
        return out

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = [s for got in pool.map(client, range(10)) for s in got]
    # as published, a GET may miss its row: another client's POST re-created the table meanwhile
    assert all(s in ((200, 201, 404) if running.mode == "as-published" else (200, 201)) for s in statuses), statuses
    active = [int(a or b) for a, b in ACTIVE.findall(running.log_path.read_text())]
    if running.mode == "as-published":
        assert len(active) >= len(statuses)  # a pool line for every connection taken
        assert max(active) == 1
    else:
        assert active == []  # fixed: no pool line per connection
