"""The HTML report in a real browser: Debian's chromium, headless, opens the file from disk and
renders its charts (SVG with data points in the DOM) with no console errors; a screenshot is taken
at a desktop width.

Console errors are read from chromium's log (--enable-logging=stderr): every console message is
logged as "CONSOLE"; a control page that throws proves the check sees errors at all.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from perflab.report import write_report
from perflab.store import Store
from tests.unit.test_report import make_run

BROWSER_TIMEOUT_S = 60


def chromium_binary() -> str:
    """Debian's chromium: found, or installed with apt-get when root; else the test is skipped."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    if os.geteuid() != 0:
        pytest.skip("chromium is not installed and installing it needs root (apt-get install chromium)")
    if not shutil.which("apt-get"):
        pytest.skip("chromium is not installed and there is no apt-get to install Debian's chromium")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
    done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:  # a stale package index: refresh once
        subprocess.run(["apt-get", "update"], env=env, capture_output=True, timeout=600)
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=900)
    found = shutil.which("chromium")
    if done.returncode != 0 or not found:
        pytest.skip(f"could not install Debian's chromium: {done.stderr.strip()[-300:]}")
    return found


def run_chromium(binary: str, profile: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    argv = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *extra, url]
    # a process group of its own: on a timeout the whole browser (renderer, GPU process) is killed
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=BROWSER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        pytest.fail(f"chromium did not finish within {BROWSER_TIMEOUT_S} s")
    finally:
        try:
            os.killpg(proc.pid, 9)  # helpers left behind by the browser, if any
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


class _SvgCounter(HTMLParser):
    """Per chart (svg.chart): its data-chart key, its data points and its lines."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[dict] = []
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "chart" in (a.get("class") or "").split():
            self.charts.append({"key": a.get("data-chart"), "points": [], "lines": 0})
            self._depth = 1
        elif self._depth:
            if tag == "circle" and a.get("class") == "pt":
                self.charts[-1]["points"].append((float(a["data-x"]), float(a["data-y"])))
            elif tag == "polyline":
                self.charts[-1]["lines"] += 1

    def handle_endtag(self, tag):
        if tag == "svg" and self._depth:
            self._depth = 0


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def browser() -> str:
    return chromium_binary()


@pytest.fixture
def report(tmp_path) -> Path:
    store = Store(tmp_path / "results.sqlite")
    try:
        run = make_run(store)
        return write_report(store, run.run_id, tmp_path / "report").html
    finally:
        store.close()


def test_the_console_check_sees_errors(browser, tmp_path):
    page = tmp_path / "throws.html"
    page.write_text('<!DOCTYPE html><p>x</p><script>throw new Error("deliberate")</script>')
    done = run_chromium(browser, tmp_path / "profile", page.as_uri(), "--dump-dom")
    assert any("deliberate" in m for m in console_messages(done.stderr))


def test_the_report_renders_its_charts_with_no_console_errors(browser, report, tmp_path):
    done = run_chromium(browser, tmp_path / "profile", report.as_uri(), "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_messages(done.stderr) == []
    parser = _SvgCounter()
    parser.feed(done.stdout)
    keys = {c["key"] for c in parser.charts}
    for expected in ("throughput-fruits", "latency-fruits", "throughput-todos", "rss", "startup-ttfr_ms",
                     "percentiles-25% of max"):
        assert expected in keys, f"chart {expected} missing from the rendered DOM"
    by_key = {c["key"]: c for c in parser.charts}
    # throughput vs connections: two apps x three connection counts, at the connection counts measured
    fruits = by_key["throughput-fruits"]
    assert len(fruits["points"]) == 6 and fruits["lines"] == 2
    assert sorted({x for x, _ in fruits["points"]}) == [1.0, 10.0, 40.0]
    assert by_key["rss"]["lines"] == 2
    assert all(c["points"] or c["lines"] for c in parser.charts)
    # the tables made it through the parser too
    assert re.search(r'<table data-table="sweep-fruits-rps">', done.stdout)


def test_the_screenshot_has_the_desktop_layout(browser, report, tmp_path):
    shot = tmp_path / "report.png"
    done = run_chromium(browser, tmp_path / "profile", report.as_uri(), f"--screenshot={shot}",
                        "--window-size=1280,4000", "--hide-scrollbars")
    assert shot.exists(), done.stderr[-2000:]
    assert png_size(shot) == (1280, 4000)
    assert shot.stat().st_size > 50_000  # a blank page compresses to a few KB
    assert console_messages(done.stderr) == []
