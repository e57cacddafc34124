"""jvmstat against real JVMs (JDK 17 and 25, each skipped with the reason when not installed): a
small program that waits, then on request runs new code that allocates; read before and after."""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import textwrap

import pytest

from perflab import jdks, jvmstat
from tests.conftest import require

pytestmark = pytest.mark.standin  # stand-ins only: it may run beside the apps group

CHURN = textwrap.dedent("""\
    import java.io.BufferedReader;
    import java.io.InputStreamReader;
    import java.util.HashMap;
    import java.util.Map;

    public class Churn {
        public static void main(String[] args) throws Exception {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
            System.out.println("ready");
            while (in.readLine() != null) {  // each line: a burst of code not run before, allocating ~300 MB
                long sum = 0;
                Map<Integer, String> map = new HashMap<>();
                for (int i = 0; i < 300_000; i++) {
                    byte[] block = new byte[1024];
                    map.put(i % 1000, Integer.toHexString(i) + block.length);
                    sum += map.get(i % 1000).hashCode();
                }
                System.out.println("done " + sum);
            }
        }
    }
    """)


def _jdk_or_skip(major: int):
    home = jdks.find_jdk(major)
    if home is None or not (home / "bin" / "jstat").exists():
        require(False, f"no JDK {major} with jstat found (set PERFLAB_JDK{major})")
    return home


@pytest.fixture(scope="module")
def classes(tmp_path_factory):
    homes = [h for h in (jdks.find_jdk(17), jdks.find_jdk(25)) if h and (h / "bin" / "javac").exists()]
    if not homes:
        require(False, "no JDK 17 or 25 with javac found")
    out = tmp_path_factory.mktemp("churn")
    (out / "Churn.java").write_text(CHURN)
    subprocess.run([str(homes[0] / "bin" / "javac"), "--release", "11", "-d", str(out), str(out / "Churn.java")],
                   check=True, capture_output=True, timeout=120)
    return out


def _line(proc: subprocess.Popen, timeout: float = 20) -> str:
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "the Java program did not answer in time"
    return proc.stdout.readline().strip()


@contextlib.contextmanager
def java(home, classes, *options):
    proc = subprocess.Popen([str(home / "bin" / "java"), "-Xmx64m", *options, "-cp", str(classes), "Churn"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=10)


def _burst(proc: subprocess.Popen) -> None:
    proc.stdin.write("go\n")
    proc.stdin.flush()
    assert _line(proc).startswith("done")


@pytest.mark.parametrize("major", [17, 25])
def test_gc_and_jit_counters_grow_while_the_program_runs_new_code_that_allocates(major, classes):
    home = _jdk_or_skip(major)
    with java(home, classes) as proc:
        assert _line(proc) == "ready"
        before = jvmstat.read(proc.pid, home)
        _burst(proc)
        after = jvmstat.read(proc.pid)  # the JDK found from the process's own java
    assert before.ok and after.ok, before.reason or after.reason
    assert before.gc == after.gc == "GarbageFirst"
    assert [c.name for c in after.collectors][:2] == ["G1 young collection pauses", "G1 full collection pauses"]
    assert jvmstat.why_missing(before, after) == ""
    d = jvmstat.delta(before, after)
    assert d["gc_count"] >= 1 and d["gc_ms"] > 0           # ~300 MB through a 64 MB heap
    assert d["gc_count"] == after.gc_count - before.gc_count
    assert d["compilations"] > 0 and d["compile_ms"] > 0   # HashMap, toHexString, concatenation got hot
    assert after.compiled_code_bytes > before.compiled_code_bytes
    assert d["safepoints"] >= d["gc_count"]               # every GC pause is a safepoint
    assert 0 < d["interval_ms"] < 60_000  # the reads' own gap, seconds: a minute is a hang, not a busy machine
    # JDK 24 and later also publish the GC threads' CPU time; JDK 17 does not.
    assert (d["gc_cpu_ms"] is None) == (major < 24)
    if major >= 24:
        assert d["gc_cpu_ms"] > 0


def test_a_jvm_without_perf_data_a_non_jvm_and_a_gone_process_are_not_available(classes, tmp_path):
    home = _jdk_or_skip(17)
    with java(home, classes, "-XX:-UsePerfData") as proc:
        assert _line(proc) == "ready"
        no_perf_data = jvmstat.read(proc.pid, home)
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        not_a_jvm = jvmstat.read(sleeper.pid, home)
    finally:
        sleeper.kill()
        sleeper.wait(timeout=10)
    gone = jvmstat.read(sleeper.pid, home)
    no_jstat = jvmstat.read(os.getpid(), tmp_path)  # a JDK home without bin/jstat
    for counters in (no_perf_data, not_a_jvm):
        assert not counters.ok and "cannot read" in counters.reason and "perf data" in counters.reason
        assert counters.collectors == () and counters.compilations is None
    assert not gone.ok and gone.reason == f"process {sleeper.pid} is gone"
    assert not no_jstat.ok and "no jstat in" in no_jstat.reason
    assert jvmstat.why_missing(gone, gone) == gone.reason
    assert set(jvmstat.delta(no_perf_data, gone).values()) == {None}
