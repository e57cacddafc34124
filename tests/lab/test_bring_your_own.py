"""Bring your own app: a jar built outside the repository, measured end to end with `perflab run
--app-jar`, and the argument errors a user can make."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from perflab.present.timelines import read_timeline

from perflab import jdks, procs, store
from perflab.paths import REPO_ROOT
from tests.conftest import needs_root, require

SOURCE = Path(__file__).parent.parent / "support" / "hello-jar" / "HelloServer.java"

BASE_PLAN = """
name = "byo-base"
repeats = 2
reductions = ["test durations"]
[startup]
runs = 2
[memory]
rest_s = 1
warmup_s = 1
load_duration_s = 2
[sweep]
warmup_s = 1
duration_s = 2
series = [{ name = "any", path = "/", connections = [1, 4] }]
[latency]
fractions = [0.25]
warmup_s = 0
duration_s = 2
"""


def _build_jar(folder: Path) -> Path:
    home = jdks.find_jdk(17)
    if home is None or not (home / "bin" / "javac").exists():
        require(False, "needs a JDK 17 with javac")
    classes = folder / "classes"
    classes.mkdir(parents=True)
    subprocess.run([str(home / "bin" / "javac"), "-d", str(classes), str(SOURCE)], check=True, timeout=120)
    jar = folder / "hello.jar"
    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nMain-Class: HelloServer\n")
        for cls in classes.glob("*.class"):
            z.write(cls, cls.name)
    return jar


def _perflab(args, env, timeout=600):
    return subprocess.run([sys.executable, "-m", "perflab", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


@needs_root("needs root for cgroups and the DB user")
@pytest.mark.usefixtures("oha_binary")  # its latency points run oha: built once, or why it cannot be
def test_a_jar_built_elsewhere_is_measured_end_to_end(tmp_path, workdir, database):
    _, conn = database
    jar = _build_jar(tmp_path / "outside")
    base = tmp_path / "base.toml"
    base.write_text(BASE_PLAN)
    env = dict(os.environ)
    assert _perflab(["db", "start", "--url", conn.url], env).returncode == 0
    port = procs.free_port()
    out = _perflab(["run", str(base), "--app-jar", str(jar), "--url", f"http://127.0.0.1:{port}/hello",
                    "--name", "hello"], env)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    s = store.Store(workdir / "results.sqlite")
    run = s.run("last")
    figures = s.figures(run["id"])
    assert {f.app for f in figures} == {"byo-hello"}
    scenarios = {f.scenario for f in figures}
    assert {"startup", "memory", "sweep", "latency"} <= scenarios
    ttfr = [f for f in figures if f.metric == "ttfr_ms"]
    assert len(ttfr) == 2 and all(f.value > 0 for f in ttfr)
    assert any(f.metric == "rps" and f.scenario == "sweep" and f.value > 0 for f in figures)
    assert not procs.port_in_use(port), "the jar was stopped"
    # load phases have timelines: the sweep's from 1 s wrk runs (warm-up included), the open-loop
    # points' from the driver's record of every request
    timelines = {f["scenario"]: Path(f["path"]) for f in s.files(run["id"]) if f["kind"] == "timeline"}
    assert set(timelines) == {"sweep", "latency"}
    rows = {name: read_timeline(p if p.is_absolute() else s.path.parent / p) for name, p in timelines.items()}
    assert {r.point for r in rows["latency"]} == {"25% of max"} and sum(r.requests for r in rows["latency"]) > 0
    sweep = rows["sweep"]
    assert len({r.point for r in sweep}) == 1 and {r.phase for r in sweep} == {"warmup", "measure"}  # one series
    assert len([r for r in sweep if r.measuring]) == 2 * 2 * 2  # 2 repeats x 2 points x 2 s in 1 s intervals
    assert [r.t_s for r in sweep] == sorted(r.t_s for r in sweep)
    assert sum(r.requests for r in sweep if r.measuring) == sum(
        f.value for f in figures if f.scenario == "sweep" and f.metric == "requests")


def test_bad_byo_arguments_are_clear(workdir):
    env = dict(os.environ)
    both = _perflab(["run", "--app-jar", "x.jar", "--app-cmd", "y", "--url", "http://127.0.0.1:8080/"], env)
    assert both.returncode == 2 and "exactly one of --app-jar" in both.stderr
    no_url = _perflab(["run", "--app-jar", "x.jar"], env)
    assert no_url.returncode == 2 and "--url" in no_url.stderr
    remote = _perflab(["run", "--app-jar", str(SOURCE), "--url", "http://10.0.0.1:8080/"], env)
    assert remote.returncode == 2 and "127.0.0.1" in remote.stderr
    missing = _perflab(["run", "--app-jar", "/nonexistent/app.jar", "--url", "http://127.0.0.1:8080/"], env)
    assert missing.returncode == 2 and "no jar at" in missing.stderr
