"""devloop with a stand-in app that restarts in its own process: its in-memory state is lost, as the
rule says."""

from __future__ import annotations

import pytest

from perflab import apps, procs
from perflab.devloop import edits, workcopy
from perflab.devloop.roundtrip import HELLO, Script

from ..devloop_standin import HttpStandIn


class _ReloadingStandIn(HttpStandIn):
    """A dev mode's behaviour: every request answers from the saved file; with `logs_start`, the
    first request after a change logs the app's start line again (as a live reload does), else
    the change is swapped in silently."""

    logs_start = True

    def start(self):
        self.app_log.parent.mkdir(parents=True, exist_ok=True)
        self.app_log.write_text("Quarkus on JVM started in 1.0s. Listening on: http://127.0.0.1\n")
        self.served = None
        super().start()

    def handle(self, method, path, body):
        text = (self.wc.app.dir / edits.HELLO["quarkus"].file).read_text()
        text = text[text.index('"Hello') + 1:].split('"', 1)[0]
        if self.served not in (None, text) and self.logs_start:
            with open(self.app_log, "a") as f:
                f.write("Quarkus on JVM started in 0.3s. Listening on: http://127.0.0.1\n")
        self.served = text
        return 200, text


@pytest.mark.parametrize("logs_start", [True, False])
def test_a_change_that_restarts_the_app_in_its_process_loses_its_state(workdir, tmp_path, logs_start):
    with workcopy.WorkingCopy(apps.get("quarkus")) as wc:
        loop = _ReloadingStandIn(wc, "jvm", procs.free_port(), {}, tmp_path, timeout_s=20)
        loop.logs_start = logs_start
        script = Script(loop, edits.HELLO["quarkus"], "/hello", 0.01, lambda: set())
        try:
            script.start()
            trip = script.change(HELLO, 0)
        finally:
            loop.stop()
    assert trip.seconds is not None
    assert trip.restarts == (1 if logs_start else 0)
    assert trip.state_kept is (not logs_start)
