"""devloop's working copies with real processes: a copy left by a killed run is removed and its loop
stopped, an interrupt mid-edit leaves the tree as it was, and a stand-in dev mode shows changes
over HTTP."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from perflab import apps, procs
from perflab.devloop import edits, workcopy
from ..devloop_standin import HttpStandIn
from tests.unit.test_devloop import tree_digest


def test_a_copy_left_by_a_killed_run_is_removed_and_its_loop_stopped_by_the_next_one(workdir):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = workcopy.copies_dir() / f"go-reference-pid{dead.stdout.strip()}-abc"
    stale.mkdir(parents=True)
    # the dev loop it left running: not our child (as after a kill -9 of its lab), in a group of its own
    started = ("import subprocess as s; print(s.Popen(['sleep', '60'], start_new_session=True, stdout=s.DEVNULL, "
               "stderr=s.DEVNULL).pid)")
    loop = int(subprocess.run([sys.executable, "-c", started], capture_output=True, text=True).stdout)
    (stale / procs.CHILD_PID).write_text(str(loop))
    mine = workcopy.copies_dir() / f"go-reference-pid{os.getpid()}-abc"
    mine.mkdir()
    try:
        assert workcopy.remove_stale() == [stale]
        assert mine.exists() and not stale.exists()
        assert not procs.alive(loop)
    finally:
        if procs.alive(loop):
            os.kill(loop, signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_mid_edit_leaves_the_tree_unchanged_and_no_copy(workdir, tmp_path, sig):
    app = apps.get("go-reference")
    before = tree_digest(app.dir)
    ready = tmp_path / "edited"
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from perflab import apps, signals
        from perflab.devloop import edits, workcopy
        signals.install()
        hello = edits.HELLO["go-reference"]
        with workcopy.WorkingCopy(apps.get("go-reference")) as wc:
            old, new = hello.broken()
            wc.edit(hello.file, old, new)
            Path({str(ready)!r}).write_text(str(wc.root))
            time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ))
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.exists(), "the edit was never made"
        copy = Path(ready.read_text())
        assert copy.exists()
        proc.send_signal(sig)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not copy.exists()
    assert tree_digest(app.dir) == before


class _DevModeStandIn(HttpStandIn):
    """A dev mode's behaviour, for the script's own logic: nothing to do after a save; every request
    answers from the saved file (500 with the compiler's message while it does not compile)."""

    def handle(self, method: str, path: str, body: str) -> tuple[int, str]:
        app_dir = self.wc.app.dir
        text = (app_dir / edits.HELLO["quarkus"].file).read_text()
        mixed = app_dir / edits.MIXED["quarkus"][0]
        if path == "/fruits":
            service = (app_dir / edits.FRUITS["quarkus"][0]).read_text()
            names = ["Apple", "Banana", "Cherry"][::-1 if ".descending()" in service else 1]
            return 200, json.dumps([{"name": n} for n in names])
        if path.startswith("/mixed/"):
            style = path.rsplit("/", 1)[1]
            found = re.search(rf'"({style} \([^"]*\))"', mixed.read_text() if mixed.exists() else "")
            return (200, found.group(1)) if found else (404, "")
        if edits.UNDEFINED in text:
            return 500, f"Compilation failed\n{app_dir / edits.HELLO['quarkus'].file}:21: error: cannot find symbol\n"
        return 200, text[text.index('"Hello') + 1:].split('"', 1)[0]


def test_a_dev_mode_shows_changes_with_no_steps_and_the_broken_edit_over_http(workdir, tmp_path):
    from perflab.devloop.roundtrip import Script

    with workcopy.WorkingCopy(apps.get("quarkus")) as wc:
        loop = _DevModeStandIn(wc, "jvm", procs.free_port(), {}, tmp_path, timeout_s=20)
        script = Script(loop, edits.HELLO["quarkus"], "/hello", 0.01, lambda: set())
        try:
            result = script.run(1, with_broken=True)
        finally:
            loop.stop()
    by_edit = {t.edit: t for t in result.trips}
    assert by_edit["hello"].steps == [] and by_edit["hello"].seconds is not None
    broken = by_edit["broken"]
    assert broken.where == "http" and broken.line == 2 and broken.seconds is not None
    assert by_edit["fix"].seconds is not None
    assert by_edit["mixed"].seconds is not None and by_edit["mixed"].steps == []
    assert by_edit["fruits"].seconds is not None and by_edit["fruits"].steps == []
