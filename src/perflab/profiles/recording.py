"""A profile over one measured window of one launch: started when steady's measurement after its
steady window begins (the intervals its GC, JIT and SQL evidence covers too), stopped when the
measurement ends, never during warm-up. JVM modes: JDK Flight Recorder, primed at the start of
warm-up (see Window.prime); the Go reference: its
runtime's pprof; any other runtime (a native image): "unavailable" with the reason, and every
other figure measured as usual. A profile that fails is reported and the launch's figures kept."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from perflab import procs
from perflab.errors import LabError
from perflab.profiles import folded, gopprof, jfr, layers, storage, threads

PRIMER = "perflab-primer"
NATIVE_WHY = ("a native image has no JDK Flight Recorder the lab can start by jcmd, and native images cannot "
              "be built on this lab's machines (docs/native-image-feasibility.md)")


def settings(ctx):
    return ctx.plan.settings("profile")


def enabled(ctx) -> bool:
    return bool(settings(ctx).enabled)


def _is_go(ctx) -> bool:
    return ctx.app.framework.split()[0].lower() == "go"


def launch_spec(ctx):
    """The instance spec of a profiled launch (the Go reference gets its profile address), else None."""
    if not enabled(ctx) or not _is_go(ctx):
        return None
    spec = ctx.spec()
    addr = f"127.0.0.1:{procs.free_port()}"
    return dataclasses.replace(spec, db_env={**spec.db_env, gopprof.ENV: addr})


class Window:
    """Start at the window's start, stop at its end; does nothing when profiling is off."""

    def __init__(self, ctx, inst, launch: int, point: str, jvm_pid: int | None) -> None:
        self.ctx, self.inst, self.launch, self.point, self.pid = ctx, inst, launch, point, jvm_pid
        self.on = enabled(ctx)
        self.kind = "jfr" if jvm_pid else "go" if _is_go(ctx) else None
        self.tmp: Path | None = None
        self.before: threads.ThreadCpu | None = None
        self.addr = (inst.spec.db_env or {}).get(gopprof.ENV, "")
        self.base: Path | None = None
        self.started = 0.0
        self.primed = False

    def _unavailable(self, why: str) -> None:
        self.on = False
        self.ctx.outcome("unavailable", why, part=f"profile {self.point} launch {self.launch}")

    def prime(self) -> None:
        """JVM modes: start a recording with the same settings before warm-up. A JVM's first JFR
        recording retransforms the JDK's instrumented classes, which throws away compiled code: started
        at the window, the window measured the JIT compiling again (half the throughput, in A/B runs of
        bench/own_cost.py). Primed, that happens in warm-up, and steady state waits for the JIT to settle.
        The primer's samples are discarded; the window's recording shares its settings, so nothing new is
        instrumented when it starts."""
        if not self.on or self.kind != "jfr":
            return
        try:
            jfr.start(self.pid, PRIMER)
            self.primed = True
        except LabError:
            pass  # start() will try again and say why if it cannot

    def _unprime(self) -> None:
        if self.primed:
            self.primed = False
            try:
                jfr.discard(self.pid, PRIMER)
            except LabError:
                pass  # the JVM is gone: its recordings with it

    def start(self) -> None:
        if not self.on:
            return
        if self.kind is None:
            return self._unavailable(NATIVE_WHY if "native" in self.ctx.mode else
                                     f"{self.ctx.app.framework} in mode {self.ctx.mode} runs no JVM and is not "
                                     "the Go reference: the lab has no profiler for its runtime")
        if self.kind == "go" and not self.addr:
            return self._unavailable("the launch was not given a profile address (PERFLAB_PPROF_ADDR)")
        if storage.used_bytes(self.ctx.lab.store, self.ctx.lab.run_id) >= settings(self.ctx).max_mb * 1e6:
            return self._unavailable(f"the run's profiles reached profile.max_mb = {settings(self.ctx).max_mb:g} MB")
        self.tmp = Path(tempfile.mkdtemp(prefix="perflab-profile-"))
        try:
            if self.kind == "jfr":
                jfr.start(self.pid)
                self.before = threads.read(self.pid)  # after the recorder's own start-up work
                self.started = time.monotonic()
            else:
                self.base = gopprof.start(self.addr, self.tmp)
        except LabError as exc:
            self._cleanup()
            self._unavailable(f"the profiler did not start: {exc}")

    def stop(self, intervals: list) -> dict | None:
        """Stops the recording and stores it; returns what was stored (None: nothing)."""
        if not self.on or self.tmp is None:
            return None
        try:
            self._unprime()
            return self._finish(intervals)
        except (LabError, OSError, subprocess.SubprocessError) as exc:
            self.ctx.outcome("failed", f"the profile was lost: {exc}", part=f"profile {self.point} launch {self.launch}")
            return None
        finally:
            self._cleanup()

    def _finish(self, intervals: list) -> dict:
        spent = threads.delta(self.before, threads.read(self.pid)) if self.kind == "jfr" else {}
        wall = time.monotonic() - self.started
        if self.kind == "jfr":
            raw = self.tmp / "window.jfr"
            jfr.stop(self.pid, raw)
            home = jfr.java_home(self.pid)
            cpu, alloc, by_thread = jfr.parse(raw, home)
            profiler = f"JDK Flight Recorder ({home.name})"
        else:
            cpu_pb, heap = gopprof.stop(self.addr, self.tmp)
            cpu, by_thread, raw = gopprof.folded(cpu_pb), {}, cpu_pb
            alloc = gopprof.folded(heap, base=self.base, index="alloc_space")
            profiler = "Go runtime pprof"
        meta = summarize(self.ctx.app.framework, cpu, intervals, spent, wall)
        meta.update({"app": self.ctx.app.name, "mode": self.ctx.mode, "launch": self.launch, "point": self.point,
                     "profiler": profiler, "threads_sampled": by_thread})
        return self._store(cpu, alloc, meta, raw)

    def _store(self, cpu, alloc, meta: dict, raw: Path) -> dict:
        lab = self.ctx.lab
        where = storage.folder(lab.store, lab.run_id, self.ctx.app.name, self.ctx.mode)
        stem = f"launch{self.launch}-{self.point.replace(' ', '_').replace('=', '')}"
        written = [where / f"{stem}.cpu.folded.gz", where / f"{stem}.alloc.folded.gz", where / f"{stem}.json"]
        folded.write(written[0], cpu)
        folded.write(written[1], alloc)
        written[2].write_text(json.dumps(meta, indent=1))
        if settings(self.ctx).keep_jfr:
            written.append(where / f"{stem}{''.join(raw.suffixes)}")
            shutil.copyfile(raw, written[-1])
        for path in written:
            lab.store.register_file(lab.run_id, self.ctx.app.name, self.ctx.mode, self.ctx.scenario.name,
                                    storage.KIND, path)
        return meta

    def abandon(self) -> None:
        self._unprime()
        self._cleanup()

    def _cleanup(self) -> None:
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None


def summarize(framework: str, cpu: folded.Stacks, intervals: list, spent: dict[str, float], wall_s: float) -> dict:
    """The window's requests and measured CPU per request, and that CPU by layer. The threads'
    CPU was read over the whole window (`wall_s`), the cgroup's over its intervals only (the short
    gaps between two load runs left out): the threads' is taken at its rate over the intervals."""
    requests = sum(i.result.requests for i in intervals)
    seconds = sum(i.result.duration_s for i in intervals)
    spent = {k: v * min(1.0, seconds / wall_s) for k, v in spent.items()} if spent and wall_s > 0 else spent
    shares = [i.cpu_share for i in intervals]
    measured_s = sum(s * i.result.duration_s for s, i in zip(shares, intervals)) if None not in shares else None
    mapping = layers.for_framework(framework)
    samples = layers.attribute(cpu, mapping)
    out = {"requests": requests, "seconds": seconds, "samples": folded.total(cpu), "mapping": list(mapping.files),
           "layer_samples": dict(samples), "thread_cpu_s": spent}
    if not requests or measured_s is None:
        out["why_no_breakdown"] = "no requests or no CPU reading over the window"
        return out
    per = 1000 / requests
    b = layers.breakdown(samples, measured_ms=measured_s * per,
                         java_ms=spent["java"] * per if spent else None,
                         gc_ms=spent.get("gc", 0.0) * per, jit_ms=spent.get("jit", 0.0) * per)
    out.update({"measured_ms": b.measured_ms, "layers_ms": b.layers})
    return out

