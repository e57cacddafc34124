"""Reading the heap flags out of jcmd VM.flags' output (read from a real JVM in
tests/lab/test_jvmflags.py)."""

from __future__ import annotations

from perflab import jvmflags


def test_flags_are_read_by_name():
    out = "12:\n-XX:CICompilerCount=2 -XX:MaxHeapSize=50331648 -XX:+UseSerialGC -XX:SoftMaxHeapSize=50331648\n"
    assert jvmflags.parse(out) == {"CICompilerCount": "2", "MaxHeapSize": "50331648",
                                   "SoftMaxHeapSize": "50331648"}
