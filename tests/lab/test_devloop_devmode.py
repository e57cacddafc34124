"""Quarkus dev mode's fallback to the apps' dev-mode pins only when plain dev mode cannot resolve (a
stand-in Maven wrapper plays Maven; the real dev mode is tests/lab/test_devloop.py's business)."""

from __future__ import annotations

import contextlib
import sys
import textwrap

import pytest

from perflab import apps, procs
from perflab.devloop import loops, workcopy
from tests.unit.test_devloop_devmode import DEPLOYMENT_POM_ABSENT, DEVUI_SPI_ABSENT, FIVE_ABSENT  # real Maven logs

STANDIN = """\
#!{python}
import http.server, pathlib, sys
here = pathlib.Path(__file__).parent
with open(here / "invocations", "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
pinned = "-D{pins}=true" in sys.argv
log = {pinned_log!r} if pinned else {plain_log!r}
if log is not None:
    print(log)
    sys.exit(1)
port = int(next(a for a in sys.argv if a.startswith("-Dquarkus.http.port=")).split("=")[1])
http.server.ThreadingHTTPServer(("127.0.0.1", port), http.server.SimpleHTTPRequestHandler).serve_forever()
"""


@contextlib.contextmanager
def _dev_mode(tmp_path, plain_log: str | None, pinned_log: str | None):
    """(working copy, dev-mode loop) of apps/quarkus with the stand-in for its Maven wrapper."""
    with workcopy.WorkingCopy(apps.get("quarkus")) as wc:
        wc.mvnw.write_text(STANDIN.format(python=sys.executable, pins=loops.DEV_UI_PINS, plain_log=plain_log,
                                          pinned_log=pinned_log))
        loop = loops.QuarkusDev(wc, "jvm", procs.free_port(), {}, tmp_path, timeout_s=30)
        try:
            yield wc, loop
        finally:
            loop.stop()


def _invocations(wc: workcopy.WorkingCopy) -> list[str]:
    return (wc.mvnw.parent / "invocations").read_text().splitlines()


def test_dev_mode_runs_plain_where_the_registry_has_everything(workdir, tmp_path):
    with _dev_mode(tmp_path, plain_log=None, pinned_log=None) as (wc, loop):
        loop.start()
        assert loop.alive() and procs.port_in_use(loop.port)
        calls = _invocations(wc)
    assert len(calls) == 1 and loops.DEV_UI_PINS not in calls[0] and "quarkus:dev" in calls[0]
    assert loop.lacked == []


def test_dev_mode_falls_back_to_the_pins_when_the_registry_lacks_dev_artifacts(workdir, tmp_path):
    with _dev_mode(tmp_path, plain_log=DEVUI_SPI_ABSENT, pinned_log=None) as (wc, loop):
        loop.start()
        assert loop.alive() and procs.port_in_use(loop.port)
        calls = _invocations(wc)
    assert [f"-D{loops.DEV_UI_PINS}=true" in c for c in calls] == [False, True]
    assert loop.lacked == ["io.quarkus:quarkus-devui-spi:3.37.1"]
    # the failed plain start keeps a log of its own; the app log is the pinned run's
    assert "quarkus-devui-spi" not in loop.app_log.read_text()
    assert [p for p in tmp_path.glob("*-unpinned.log") if "quarkus-devui-spi" in p.read_text()]


def test_dev_mode_is_unavailable_naming_what_both_starts_lacked(workdir, tmp_path):
    with _dev_mode(tmp_path, plain_log=DEVUI_SPI_ABSENT, pinned_log=DEPLOYMENT_POM_ABSENT) as (_, loop):
        with pytest.raises(loops.Unavailable) as err:
            loop.start()
    assert err.value.message == ("dev mode cannot start: the registry lacks io.quarkus:quarkus-devui-spi:3.37.1; with "
                                 f"the app's dev-mode pins ({loops.DEV_UI_PINS}) still "
                                 "io.quarkus:quarkus-devui-deployment:3.37.1")


def test_an_app_without_the_pins_is_unavailable_after_one_start(workdir, tmp_path):
    with _dev_mode(tmp_path, plain_log=FIVE_ABSENT, pinned_log=None) as (wc, loop):
        pom = wc.app.dir / "pom.xml"
        pom.write_text(pom.read_text().replace(loops.DEV_UI_PINS, "some.other.property"))
        with pytest.raises(loops.Unavailable, match="lacks io.quarkus:quarkus-devui-spi:3.37.1, .*quarkus-jdbc-h2"):
            loop.start()
        assert len(_invocations(wc)) == 1


def test_a_start_failing_for_another_reason_is_left_to_the_callers_wait(workdir, tmp_path):
    compile_error = textwrap.dedent("""\
        [ERROR] COMPILATION ERROR :
        [ERROR] /w/src/main/java/dev/perflab/HelloResource.java:[21,16] cannot find symbol
        [INFO] BUILD FAILURE
        """)
    with _dev_mode(tmp_path, plain_log=compile_error, pinned_log=None) as (wc, loop):
        loop.start()
        assert not loop.alive()
        assert len(_invocations(wc)) == 1
