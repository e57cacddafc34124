"""A private Apache Kafka broker in KRaft mode (one node, broker and controller), started and
stopped like the lab's PostgreSQL: jars resolved once from Maven Central with the Maven wrapper
(cached outside the checkout), 127.0.0.1 only, free ports, a private data folder formatted with
Kafka's own storage tool, and nothing left behind when it stops, fails or is interrupted (a broker
left by a killed run is stopped and removed by the next one)."""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from perflab import jdks, procs, signals
from perflab.errors import LabError
from perflab.paths import MAVEN_WRAPPER, cache_dir, maven_config_args, work_dir
from perflab.waiting import wait_until

KAFKA_VERSION = "4.1.1"
SCALA = "2.13"
SLF4J_VERSION = "1.7.36"  # the slf4j-api kafka_2.13 brings; a binding of another line stays silent

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.perflab</groupId><artifactId>kafka-broker-jars</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_{scala}</artifactId><version>{kafka}</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-simple</artifactId><version>{slf4j}</version></dependency>
  </dependencies>
</project>
"""


def jars_dir(version: str = KAFKA_VERSION) -> Path:
    return cache_dir() / "kafka" / version / "lib"


def ensure_jars(version: str = KAFKA_VERSION, say=print) -> Path:
    """The broker's jars (kafka_2.13 and its runtime dependencies), resolved once and cached."""
    lib = jars_dir(version)
    if (lib / ".complete").exists():
        return lib
    root = lib.parent
    root.mkdir(parents=True, exist_ok=True)
    (root / "pom.xml").write_text(_POM.format(scala=SCALA, kafka=version, slf4j=SLF4J_VERSION))
    shutil.rmtree(lib, ignore_errors=True)
    say(f"kafka: resolving Apache Kafka {version} from Maven Central (once)")
    env = {"JAVA_HOME": str(jdks.require_jdk(17))}
    log = root / "resolve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([str(MAVEN_WRAPPER), *maven_config_args(), "-B", "-f", str(root / "pom.xml"),
                                 "dependency:copy-dependencies", "-DincludeScope=runtime", f"-DoutputDirectory={lib}"],
                                cwd=root, env=dict(os.environ, **env), stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = proc.wait(timeout=900)
        except BaseException:
            procs.stop_group(proc.pid, timeout=5, proc=proc)
            raise
    if rc != 0 or not any(lib.glob(f"kafka_{SCALA}-*.jar")):
        raise LabError(f"could not resolve Apache Kafka {version} from Maven Central (exit {rc})",
                       details=procs.tail(log, 15), fix=f"see {log}; the registry must serve org.apache.kafka:kafka_{SCALA}")
    (lib / ".complete").write_text(version)
    return lib


def cluster_id() -> str:
    """A KRaft cluster id: 16 random bytes, base64url without padding (what kafka-storage random-uuid gives).
    Never one starting with "-" (one in 64): the storage tool would read it as an option and fail,
    which is why Kafka's own generator draws again too."""
    while True:
        made = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not made.startswith("-"):
            return made


def _properties(data: Path, port: int, controller_port: int) -> str:
    return "\n".join([
        "process.roles=broker,controller", "node.id=1",
        f"controller.quorum.voters=1@127.0.0.1:{controller_port}",
        f"listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}",
        "controller.listener.names=CONTROLLER", "inter.broker.listener.name=PLAINTEXT",
        "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        f"log.dirs={data / 'logs'}", "num.partitions=1", "auto.create.topics.enable=true",
        "offsets.topic.replication.factor=1", "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1", "share.coordinator.state.topic.replication.factor=1",
        "share.coordinator.state.topic.min.isr=1", "group.initial.rebalance.delay.ms=0", ""])


STARTED_LINE = "Kafka Server started"


def started_since(log_path: Path, offset: int) -> bool:
    """Whether the broker logged its start line after `offset` (bytes): the log is appended to on
    every start, so an earlier start's line must not count for this one."""
    try:
        with open(log_path, "rb") as f:
            f.seek(offset)
            return STARTED_LINE.encode() in f.read()
    except OSError:
        return False


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class Broker:
    """`with Broker() as b:` -> b.bootstrap is "127.0.0.1:PORT"; stopped and its data removed on exit.
    `starts` counts its starts (more than one: restarted, e.g. for a stream app that needed it)."""

    def __init__(self, version: str = KAFKA_VERSION, heap_mb: int = 256, say=print):
        self.version, self.heap_mb, self.say = version, heap_mb, say
        self.root: Path | None = None
        self.proc = None
        self.port = 0
        self.starts = 0

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        assert self.root is not None
        return self.root / "broker.log"

    def _java(self, *args: str, log: Path | None = None, wait: bool = False):
        lib = ensure_jars(self.version, self.say)
        argv = [str(jdks.require_jdk(17) / "bin" / "java"), f"-Xmx{self.heap_mb}m", "-cp", f"{lib}/*", *args]
        if wait:
            res = subprocess.run(argv, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
            if res.returncode != 0:
                raise LabError(f"kafka: {args[0]} failed (exit {res.returncode})", details=(res.stdout + res.stderr)[-2000:])
            return res
        return procs.spawn(argv, log_path=log or self.log_path, cwd=self.root)

    def start(self, timeout_s: float = 120) -> "Broker":
        if self.root is None:
            (work_dir() / "kafka").mkdir(parents=True, exist_ok=True)
            procs.remove_orphans(work_dir() / "kafka")
            self.root = Path(tempfile.mkdtemp(prefix=f"broker-pid{os.getpid()}-", dir=work_dir() / "kafka"))
            self.port, controller = procs.free_port(), procs.free_port()
            while controller == self.port:
                controller = procs.free_port()
            props = self.root / "server.properties"
            props.write_text(_properties(self.root, self.port, controller))
            self._java("kafka.tools.StorageTool", "format", "-t", cluster_id(), "-c", str(props), wait=True)
        started = time.monotonic()
        log_from = self.log_path.stat().st_size if self.log_path.exists() else 0
        self.proc = self._java("kafka.Kafka", str(self.root / "server.properties"))
        (self.root / procs.CHILD_PID).write_text(str(self.proc.pid))
        self.starts += 1

        def started_now() -> bool:
            if self.proc.poll() is not None:
                raise LabError(f"kafka: the broker exited with code {self.proc.returncode} while starting",
                               details=procs.tail(self.log_path, 20), fix=f"see {self.log_path}")
            return _answers(self.port) and started_since(self.log_path, log_from)

        if wait_until(started_now, timeout_s - (time.monotonic() - started), interval_s=0.1):
            return self
        raise LabError(f"kafka: the broker did not start within {timeout_s:.0f} s", details=procs.tail(self.log_path, 20))

    def restart(self, timeout_s: float = 120) -> None:
        """Stop the broker process and start it again on the same data, ports and log."""
        self.stop_process()
        self.start(timeout_s)

    def stop_process(self) -> None:
        if self.proc is not None:
            procs.stop_group(self.proc.pid, timeout=20, proc=self.proc)
            self.proc = None

    def stop(self) -> None:
        with signals.shielded():
            self.stop_process()
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
                self.root = None

    def __enter__(self) -> "Broker":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()
