"""A private H2 database over TCP for apps whose descriptor says `db_server = "h2"` (KT-2020's
Kotlin apps): the H2 jar from Maven Central (fetched once with the Maven wrapper), the server
bound to 127.0.0.1 on a free port (remote connections refused: no -tcpAllowOthers), its files in
a private folder of the work directory, a generated password, and the table KT-2020's apps read
with its seed row. Stopped and its folder removed at the end of the run, also after Ctrl-C; a
server left behind by a killed lab is stopped by the next one.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from perflab import jdks, procs
from perflab.errors import LabError
from perflab.paths import MAVEN_WRAPPER, cache_dir, maven_config_args, work_dir
from perflab.waiting import wait_until

# The apps' own H2 (apps/kt2020-*/pom.xml): client and server speak the same protocol version.
H2_VERSION = "2.4.240"
JDK = 17
DATABASE = "test"  # the blog's jdbc:h2:tcp://localhost:1521/test
USER = "sa"
# What KT-2020's apps expect: the blog's table and its seed row.
# IF NOT EXISTS: an as-published app may re-create the table between the two statements.
SEED_SQL = """DROP TABLE IF EXISTS DATA_OBJECTS;
CREATE TABLE IF NOT EXISTS DATA_OBJECTS(ID INT, DATA VARCHAR(100));
DELETE FROM DATA_OBJECTS;
INSERT INTO DATA_OBJECTS(ID, DATA) VALUES(1, 'SlimShady');
"""
_TRACKED = "h2-"  # procs.remember names: h2-<port>


@dataclass
class H2Connection:
    host: str
    port: int
    password: str
    database: str = DATABASE
    user: str = USER

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:h2:tcp://{self.host}:{self.port}/{self.database}"

    def app_env(self) -> dict[str, str]:
        return {"DB_URL": self.jdbc_url, "DB_USER": self.user, "DB_PASSWORD": self.password}


def h2_jar(log=print) -> Path:
    """The H2 jar, copied once from Maven Central (through ~/.m2) into the lab's cache."""
    jar = cache_dir() / "h2" / f"h2-{H2_VERSION}.jar"
    if jar.exists():
        return jar
    jar.parent.mkdir(parents=True, exist_ok=True)
    log(f"fetching com.h2database:h2:{H2_VERSION} with the Maven wrapper ...")
    with tempfile.TemporaryDirectory(dir=jar.parent, prefix=".fetch-") as tmp:
        res = subprocess.run(
            [str(MAVEN_WRAPPER), *maven_config_args(), "-B", "-q", "dependency:copy",
             f"-Dartifact=com.h2database:h2:{H2_VERSION}", f"-DoutputDirectory={tmp}"],
            cwd=tmp, capture_output=True, text=True, timeout=600,
            env={**_java_env(), "MAVEN_OPTS": "-Xmx256m"})
        fetched = Path(tmp) / jar.name
        if res.returncode != 0 or not fetched.exists():
            raise LabError(f"could not fetch the H2 jar {H2_VERSION}", details=(res.stdout + res.stderr)[-2000:],
                           fix="check that Maven Central is reachable (./perflab doctor)")
        fetched.replace(jar)  # whole or not at all: an interrupted fetch never looks complete
    return jar


def _java_env() -> dict[str, str]:
    return {**os.environ, "JAVA_HOME": str(jdks.require_jdk(JDK))}


def _java() -> str:
    return str(jdks.require_jdk(JDK) / "bin" / "java")


class Server:
    """One private H2 TCP server: start() -> connection, seed(), stop() (also removes its files)."""

    def __init__(self, log=print):
        self.log = log
        self.dir: Path | None = None
        self.proc: subprocess.Popen | None = None
        self.conn: H2Connection | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def start(self, preexec=None, timeout_s: float = 60.0) -> H2Connection:
        stop_leftovers()
        jar = h2_jar(self.log)
        root = work_dir() / "h2"
        root.mkdir(parents=True, exist_ok=True)
        self.dir = Path(tempfile.mkdtemp(prefix="server-", dir=root))
        try:
            password = secrets.token_urlsafe(18)
            # Created here, before the server runs, so the server never needs -ifNotExists (which
            # would let any local client create databases in its folder).
            self._run_script(jar, f"jdbc:h2:{self.dir / DATABASE}", password)
            port = procs.free_port()
            argv = [_java(), "-Xmx256m", "-Dh2.bindAddress=127.0.0.1", "-cp", str(jar), "org.h2.tools.Server",
                    "-tcp", "-tcpPort", str(port), "-baseDir", str(self.dir)]
            self.proc = procs.spawn(argv, log_path=self.dir / "server.log", cwd=self.dir, preexec=preexec)
            procs.remember(procs.Tracked(f"{_TRACKED}{port}", self.proc.pid, self.proc.pid, f"tcp://127.0.0.1:{port}",
                                         str(self.dir / "server.log"), time.time(), {"dir": str(self.dir)}))
            self._wait_listening(port, timeout_s)
            self.conn = H2Connection("127.0.0.1", port, password)
            return self.conn
        except BaseException:
            self.stop()
            raise

    def seed(self, attempts: int = 3) -> None:
        """(Re)create the apps' table with its seed row: every launch starts from the same data.
        Tried again when it fails: an as-published app still finishing the POSTs a load left
        queued drops and re-creates the same table meanwhile."""
        if self.conn is None:
            raise LabError("the H2 server is not running")
        for attempt in range(attempts):
            try:
                self._run_script(h2_jar(self.log), self.conn.jdbc_url, self.conn.password)
                return
            except LabError:
                if attempt == attempts - 1:
                    raise
                time.sleep(1.0)

    def _run_script(self, jar: Path, url: str, password: str) -> None:
        assert self.dir is not None
        script = self.dir / "seed.sql"
        script.write_text(SEED_SQL)
        try:
            res = subprocess.run([_java(), "-Xmx64m", "-cp", str(jar), "org.h2.tools.RunScript", "-url", url,
                                  "-user", USER, "-password", password, "-script", str(script)],
                                 capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired as exc:
            raise LabError("loading the H2 seed did not finish within 120 s") from exc
        if res.returncode != 0:
            output = (res.stdout + res.stderr).strip()
            raise LabError(f"loading the H2 seed failed: {output.splitlines()[0][:200] if output else res.returncode}",
                           details=output[-2000:])

    def _wait_listening(self, port: int, timeout_s: float) -> None:
        def listening() -> bool:
            if self.proc.poll() is not None:
                raise LabError(f"the H2 server exited with code {self.proc.returncode} before it listened",
                               details=procs.tail(self.dir / "server.log", 20))
            with socket.socket() as s:
                s.settimeout(0.2)
                return s.connect_ex(("127.0.0.1", port)) == 0

        if wait_until(listening, timeout_s):
            return
        raise LabError(f"the H2 server did not listen on 127.0.0.1:{port} within {timeout_s:.0f} s",
                       details=procs.tail(self.dir / "server.log", 20))

    def stop(self) -> None:
        if self.proc is not None:
            procs.stop_group(self.proc.pid, timeout=10, proc=self.proc)
            if self.conn is not None:
                procs.forget(f"{_TRACKED}{self.conn.port}")
        if self.dir is not None:
            for entry in procs.recall_all(_TRACKED):
                if entry.detail.get("dir") == str(self.dir):
                    procs.forget(entry.name)
            shutil.rmtree(self.dir, ignore_errors=True)
        self.proc = self.conn = self.dir = None


def stop_leftovers() -> list[str]:
    """Stop H2 servers a killed lab left running (remembered in the work directory) and remove
    their folders; returns what was cleaned."""
    cleaned = []
    for entry in procs.recall_all(_TRACKED):
        if procs.group_alive(entry.pgid) and _is_h2(entry.pid):
            procs.stop_group(entry.pgid, timeout=10)
        if entry.detail.get("dir"):
            shutil.rmtree(entry.detail["dir"], ignore_errors=True)
        procs.forget(entry.name)
        cleaned.append(entry.url)
    return cleaned


def _is_h2(pid: int) -> bool:
    """The pid is still an H2 server (not a recycled pid of something else)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"org.h2.tools.Server" in f.read()
    except OSError:
        return False
