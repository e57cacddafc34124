"""A private PostgreSQL cluster for the lab (initdb + pg_ctl, 127.0.0.1 only, a free port, a
generated password), or an existing server given by URL.

As root the server runs as an unprivileged user (PostgreSQL refuses to run as root). The cluster
lives under the work directory; its state survives the command so `perflab db stop` finds it from
a new shell.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from perflab import db_home, procs, signals
from perflab.db_home import SERVER_USER  # the unprivileged account that runs the server when we are root
from perflab.errors import LabError
from perflab.paths import CONTRACT_DIR
from perflab.waiting import wait_until

DB_NAME = "perflab"
DB_USER = "perflab"


@dataclass
class Connection:
    host: str
    port: int
    database: str
    user: str
    password: str
    external: bool = False

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://{self.host}:{self.port}/{self.database}"

    @property
    def url(self) -> str:
        return (
            f"postgresql://{quote(self.user)}:{quote(self.password, safe='')}"
            f"@{self.host}:{self.port}/{self.database}"
        )

    @property
    def display_url(self) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.database}"

    def app_env(self) -> dict[str, str]:
        """The contract's environment variables for an app using this database."""
        return {"DB_URL": self.jdbc_url, "DB_USER": self.user, "DB_PASSWORD": self.password}

    @classmethod
    def from_url(cls, url: str) -> "Connection":
        parts = urlsplit(url)
        if parts.scheme not in ("postgresql", "postgres"):
            raise LabError(
                f"not a PostgreSQL URL: {url!r}",
                fix="give it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE",
            )
        if not parts.hostname or not parts.username:
            raise LabError(f"the URL {url!r} lacks a host or a user", fix="postgresql://USER:PASSWORD@HOST:PORT/DATABASE")
        return cls(
            host=parts.hostname,
            port=parts.port or 5432,
            database=(parts.path or "/").lstrip("/") or DB_NAME,
            user=unquote(parts.username),
            password=unquote(parts.password or ""),
            external=True,
        )


def bin_dir() -> Path:
    """The newest PostgreSQL server binaries (PG_BINDIR overrides)."""
    override = os.environ.get("PG_BINDIR")
    candidates = [override] if override else sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0
    )
    for cand in reversed(candidates):
        if cand and (Path(cand) / "initdb").exists() and (Path(cand) / "pg_ctl").exists():
            return Path(cand)
    on_path = shutil.which("initdb")
    if on_path:
        return Path(os.path.realpath(on_path)).parent
    raise LabError(
        "PostgreSQL server binaries (initdb, pg_ctl) not found",
        fix="run `./perflab doctor` as root (installs Debian's postgresql), or apt-get install postgresql, or set PG_BINDIR",
    )


def psql_binary() -> str:
    local = bin_dir() / "psql"
    if local.exists():
        return str(local)
    found = shutil.which("psql")
    if not found:
        raise LabError("psql not found", fix="apt-get install postgresql-client")
    return found


class Cluster:
    """The lab's private cluster in <work>/db, or the external server recorded there."""

    def __init__(self, root: Path | None = None):
        self.root = root or db_home.cluster_root()  # <work>/db, or the shared folder it links to
        self.placed_by_lab = root is None  # the lab may move it where the server's user can reach it

    @property
    def state_file(self) -> Path:
        return self.root / "state.json"

    # --- state -------------------------------------------------------------------------------

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def log_path(self) -> Path:
        return self.root / "server.log"

    def _read_state(self) -> dict | None:
        try:
            return json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return None

    def _write_state(self, state: dict) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=2))
        os.chmod(tmp, 0o600)  # it holds the generated password
        tmp.replace(self.state_file)

    def connection(self) -> Connection | None:
        state = self._read_state()
        if not state or not state.get("connection"):
            return None
        return Connection(**state["connection"])

    def server_pid(self) -> int | None:
        """The postmaster's pid if our private server is running."""
        try:
            pid = int((self.data_dir / "postmaster.pid").read_text().splitlines()[0])
        except (OSError, ValueError, IndexError):
            return None
        return pid if procs.alive(pid) else None

    def status(self) -> dict:
        conn = self.connection()
        if conn is None:
            return {"running": False}
        if conn.external:
            return {"running": self.answers(conn), "external": True, "url": conn.display_url}
        pid = self.server_pid()
        return {"running": pid is not None, "external": False, "pid": pid, "url": conn.display_url,
                "data_dir": str(self.data_dir), "log": str(self.log_path)}

    # --- private server ------------------------------------------------------------------------

    def _as_server_user(self):
        """preexec for the server's processes when we are root (PostgreSQL refuses root)."""
        if os.geteuid() != 0:
            return None
        try:
            pw = pwd.getpwnam(SERVER_USER)
        except KeyError as exc:
            raise LabError(
                f"running as root, but there is no unprivileged '{SERVER_USER}' user to run PostgreSQL",
                fix="apt-get install postgresql (creates it), or run perflab as a normal user",
            ) from exc

        def demote():
            os.setgid(pw.pw_gid)
            os.initgroups(SERVER_USER, pw.pw_gid)
            os.setuid(pw.pw_uid)

        self._server_uid = pw.pw_uid
        self._server_gid = pw.pw_gid
        return demote

    def _run(self, argv: list[str], what: str, timeout: float = 120, preexec=None) -> str:
        demote = self._as_server_user()
        env = dict(os.environ, LC_ALL="C", LANG="C")

        def prepare():
            if preexec:  # e.g. join the DB's cgroup: must happen before dropping root
                preexec()
            if demote:
                demote()

        proc = signals.popen(argv, preexec_fn=prepare, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True, cwd="/")
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            proc.kill()
            proc.communicate()
            raise LabError(f"{what} did not finish within {timeout:.0f} s") from exc
        except BaseException:
            proc.kill()
            proc.communicate()
            raise
        if proc.returncode != 0:
            raise LabError(f"{what} failed (exit {proc.returncode})", details=(out + err)[-3000:])
        return out

    def _check_reachable_by_server_user(self) -> None:
        if not db_home.needs_server_user():
            return
        parent = db_home.blocking_folder(self.root)
        if parent is not None:
            raise LabError(
                f"the unprivileged '{SERVER_USER}' user cannot enter {parent}, so it cannot run the cluster in {self.root}",
                fix="set PERFLAB_WORKDIR to a directory outside private home folders (e.g. /var/tmp/perflab)",
            )

    def start(self, port: int | None = None, preexec=None, listen: tuple[str, ...] = ("127.0.0.1",),
              allow_from: tuple[str, ...] = (), statement_stats: bool = True) -> Connection:
        """Create the cluster if needed and start it; clear errors when it runs already or the port is taken.
        `listen`: the addresses it listens on; `allow_from`: networks (CIDR) besides this host whose
        clients may log in with the password (e.g. a local node's pods); `statement_stats`: load
        pg_stat_statements (a run loads it only when it profiles: see STATEMENT_STATS_ENV)."""
        status = self.status()
        if status.get("running"):
            raise LabError(
                f"the lab's database is already running at {status['url']}"
                + (f" (pid {status['pid']})" if status.get("pid") else ""),
                fix="use it as it is, or `./perflab db stop` first",
            )
        if port is not None and procs.port_in_use(port):
            who = procs.who_listens(port)
            raise LabError(
                f"port {port} on 127.0.0.1 is already in use" + (f" by {who}" if who else ""),
                fix="choose another port with --port, or leave it out to use a free one",
            )
        bindir = bin_dir()
        if self.placed_by_lab:
            self.root = db_home.place()[0]
        self.root.mkdir(parents=True, exist_ok=True)
        self._check_reachable_by_server_user()
        demote = self._as_server_user()
        if demote:
            os.chown(self.root, self._server_uid, self._server_gid)
        os.chmod(self.root, 0o700)

        conn = self.connection()
        fresh = not (self.data_dir / "PG_VERSION").exists() or conn is None or conn.external
        if fresh:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            password = secrets.token_urlsafe(18)
            pwfile = self.root / "pwfile"
            pwfile.write_text(password + "\n")
            if demote:
                os.chown(pwfile, self._server_uid, self._server_gid)
            os.chmod(pwfile, 0o600)
            try:
                self._run([str(bindir / "initdb"), "-D", str(self.data_dir), "-U", DB_USER, f"--pwfile={pwfile}",
                           "--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-instructions"], "initdb")
            finally:
                pwfile.unlink(missing_ok=True)
            conn = Connection("127.0.0.1", 0, DB_NAME, DB_USER, password)
        assert conn is not None
        conn.port = port or procs.free_port()
        self._allow(allow_from)
        self._write_state({"connection": asdict(conn), "bindir": str(bindir)})
        if self.log_path.exists() and demote:
            os.chown(self.log_path, self._server_uid, self._server_gid)
        # pg_stat_statements counts the statements each app sends (perflab.dbstats); it ships with
        # PostgreSQL and can only be loaded at server start.
        options = (f"-p {conn.port} -k {self.root} -c listen_addresses={','.join(listen)} -c max_connections=200"
                   f"{_preload_option(bindir, statement_stats)}")
        try:
            self._run([str(bindir / "pg_ctl"), "-D", str(self.data_dir), "-l", str(self.log_path), "-o", options,
                       "-w", "-t", "60", "start"], "starting PostgreSQL", preexec=preexec)
            if fresh:
                self._create_database(conn)
        except BaseException as exc:
            # Interrupted or failed half-way: leave nothing of ours running.
            self.stop(quiet=True)
            if isinstance(exc, LabError):
                exc.details = (exc.details or "") + "\nserver log:\n" + procs.tail(self.log_path, 15)
            raise
        return conn

    def _allow(self, networks: tuple[str, ...]) -> None:
        hba = self.data_dir / "pg_hba.conf"
        lines = [f"host all all {net} scram-sha-256" for net in networks]
        text = hba.read_text()
        missing = [line for line in lines if line not in text.splitlines()]
        if missing:
            hba.write_text(text.rstrip("\n") + "\n" + "\n".join(missing) + "\n")

    def _create_database(self, conn: Connection) -> None:
        run_sql(conn, f"CREATE DATABASE {DB_NAME} OWNER {DB_USER}", database="postgres")

    def stop(self, quiet: bool = False) -> bool:
        """Stop our server (or forget the external one). True if something was stopped."""
        conn = self.connection()
        if conn is not None and conn.external:
            self.state_file.unlink(missing_ok=True)
            return True
        pid = self.server_pid()
        if pid is None:
            return False
        try:
            self._run([str(bin_dir() / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "-t", "30", "stop"],
                      "stopping PostgreSQL")
        except LabError:
            if not quiet:
                raise
        # pg_ctl returns once the postmaster is gone; make sure no backend of ours lingers.
        if not wait_until(lambda: not procs.alive(pid), 10):
            os.kill(pid, 9)
        return True

    def use_external(self, url: str) -> Connection:
        conn = Connection.from_url(url)
        if not self.answers(conn):
            raise LabError(f"no PostgreSQL answers at {conn.display_url}", fix="check the URL, the password and that the server runs")
        if self.server_pid() is not None:
            raise LabError("the lab's private database is running", fix="`./perflab db stop` it before using another server")
        self._write_state({"connection": asdict(conn)})
        return conn

    @staticmethod
    def answers(conn: Connection) -> bool:
        try:
            run_sql(conn, "SELECT 1", timeout=5)
            return True
        except LabError:
            return False


def run_sql(conn: Connection, sql: str | None = None, *, files: list[Path] = (), database: str | None = None,
            timeout: float = 60) -> str:
    """Run SQL with psql against conn (stops at the first error)."""
    argv = [psql_binary(), "-h", conn.host, "-p", str(conn.port), "-U", conn.user, "-d", database or conn.database,
            "-v", "ON_ERROR_STOP=1", "-q", "-X", "-A", "-t"]
    if sql:
        argv += ["-c", sql]
    for f in files:
        argv += ["-f", str(f)]
    env = dict(os.environ, PGPASSWORD=conn.password, PGCONNECT_TIMEOUT="5")
    try:
        res = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise LabError(f"psql did not finish within {timeout:.0f} s") from exc
    if res.returncode != 0:
        raise LabError(f"SQL on {conn.display_url} failed", details=res.stderr[-2000:])
    return res.stdout


def load_contract(conn: Connection) -> None:
    """(Re)create the contract schema and seed data: every app starts from the same rows. On the
    private server, also create pg_stat_statements (see ensure_statement_stats)."""
    run_sql(conn, files=[CONTRACT_DIR / "schema.sql", CONTRACT_DIR / "seed.sql"])
    ensure_statement_stats(conn)


def app_database_name(app_name: str) -> str:
    """The database of an app that brings its own schema: perflab_<app> (a valid SQL identifier)."""
    return f"{DB_NAME}_" + re.sub(r"[^a-z0-9_]", "_", app_name.lower())[:50]


def create_app_database(conn: Connection, app_name: str, files: list[tuple[str, Path]]) -> Connection:
    """Drop and create the app's own database on the lab's server, owned by the lab's user, then
    run its SQL files in it (each (key, path): an error names the descriptor key and the file).
    Every launch of the app's modes starts from the same rows, as contract apps do."""
    name = app_database_name(app_name)
    try:
        run_sql(conn, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', database="postgres")
        run_sql(conn, f'CREATE DATABASE "{name}" OWNER "{conn.user}"', database="postgres")
    except LabError as exc:
        raise LabError(f"cannot create the database {name} of {app_name} on {conn.display_url}",
                       details=exc.details, fix="the lab's user needs the CREATEDB privilege on that server") from exc
    own = replace(conn, database=name)
    for key, path in files:
        try:
            run_sql(own, files=[path], timeout=300)
        except LabError as exc:
            raise LabError(f"{app_name}: {key} file {path} failed in its database {name}", details=exc.details) from exc
    ensure_statement_stats(own)
    return own


STATEMENT_STATS = "pg_stat_statements"
# Counting statements costs the database CPU it shares with the load driver: loaded, it took 11 % of
# the Go reference's throughput and 4 % of Quarkus's (bench/own_cost.py statements), so a run's
# private server loads it only when the run profiles. "on" or "off" here overrides that (the benchmark
# measures both sides with it).
STATEMENT_STATS_ENV = "PERFLAB_STATEMENT_STATS"


def _preload_option(bindir: Path, wanted: bool = True) -> str:
    """The server option that loads pg_stat_statements, or "" when not `wanted` (unless forced on by
    STATEMENT_STATS_ENV) or when this installation lacks it (the statement counts are then "not
    available", the server starts as before)."""
    forced = os.environ.get(STATEMENT_STATS_ENV, "").lower()
    if forced == "off" or (not wanted and forced != "on"):
        return ""
    try:
        libdir = subprocess.run([str(bindir / "pg_config"), "--pkglibdir"], capture_output=True, text=True,
                                timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        libdir = ""
    candidates = [Path(libdir)] if libdir else []
    candidates.append(bindir.parent / "lib")
    if not any((d / f"{STATEMENT_STATS}.so").exists() for d in candidates):
        return ""
    return f" -c shared_preload_libraries={STATEMENT_STATS}"


def ensure_statement_stats(conn: Connection) -> str:
    """Create pg_stat_statements in the lab's database on the private server; "" when done, else
    why not. Never raises: without it only the statement counts are missing. An external server's
    configuration is left alone. The lab's user is the private cluster's superuser (initdb -U)."""
    if conn.external:
        return "an external server: the lab does not add extensions to it"
    try:
        run_sql(conn, f"CREATE EXTENSION IF NOT EXISTS {STATEMENT_STATS}", timeout=30)
    except LabError as exc:
        return f"CREATE EXTENSION {STATEMENT_STATS} failed: {(exc.details or exc.message).strip()[-300:]}"
    return ""
