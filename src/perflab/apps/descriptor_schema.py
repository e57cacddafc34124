"""The keys of an app descriptor (perflab.toml), typed and validated by the same settings library
as plans: an unknown key is named with the allowed ones (and the closest), a wrong type or a
missing key says which. What needs the descriptor's folder or several keys at once (the SQL files,
placeholders, the API, the database server) is checked by descriptors.load_descriptor."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from perflab.settings import Settings, setting

Argv = Annotated[list[str], Field(min_length=1)]
DB_SERVERS = ("postgresql", "h2")  # the lab's PostgreSQL (default), or an H2 over TCP it starts (perflab.h2)


def url_path(value: str, empty_ok: bool = False) -> str:
    if not (value.startswith("/") or (empty_ok and value == "")):
        raise ValueError(f"must be a path starting with /, got {value!r}")
    return value


class BuildSpec(Settings):
    command: Argv = setting(..., "the build's argv ({mvnw} and {app_dir} are replaced)")
    artifact: str = setting(..., "what the build makes, relative to the app's folder")
    jdk: int | None = setting(None, "the JDK it builds with")
    env: dict[str, str] = setting({}, "extra environment of the build")


class ModeBuild(Settings):
    command: Argv = setting(..., "a build of the mode's own (e.g. native)")
    artifact: str = setting(..., "what it makes")
    jdk: int | None = setting(None, "the JDK it builds with")


class ModeSpec(Settings):
    command: Argv = setting(..., "the launch argv, with placeholders")
    jdk: int | None = setting(None, "the JDK a JVM mode runs on")
    env: dict[str, str] = setting({}, "extra environment, with placeholders")
    description: str = setting("", "what the mode is")
    requires: list[Literal["native-image"]] = setting([], "what the machine needs for the mode")
    build: ModeBuild | None = setting(None, "a build of the mode's own")
    prepare: Argv | None = setting(None, "argv run before the mode's first launch")
    aot: Literal["train"] | None = setting(None, "train: the lab trains a JDK AOT cache first")


class SmokeSpec(Settings):
    path: str = setting(..., "the request, e.g. /items")
    status: int = setting(200, "the status it must answer", ge=100, le=599)
    contains: str = setting("", "a text the body must contain")

    @field_validator("path")
    @classmethod
    def _path(cls, value: str) -> str:
        return url_path(value)


class DatabaseSpec(Settings):
    schema_files: str | list[str] = Field([], alias="schema", description="SQL run first in the app's own database")
    seed: str | list[str] = setting([], "SQL run after the schema")


class Descriptor(Settings):
    name: str = setting(..., "the app's name")
    framework: str = setting(..., "its framework")
    framework_version: str = setting("", "the framework's version")
    description: str = setting("", "what the app is")
    sources: list[str] = setting(..., "files and folders whose content decides a rebuild")
    ready_path: str = setting(..., "where it answers 200 when ready")
    first_response_path: str = setting(..., "the first request after a launch")
    startup_log_regex: str | None = setting(None, "the log line with the framework's own start time")
    build: BuildSpec = setting(..., "how the app is built")
    modes: dict[str, ModeSpec] = setting(..., "how each runtime mode launches", min_length=1)
    port: int | None = setting(None, "a fixed port, for apps that do not read HTTP_PORT")
    api: str | None = setting(None, "the API it serves (contract, or a name of its own)")
    database: DatabaseSpec | None = setting(None, "a database of its own")
    smoke: list[SmokeSpec] = setting([], "requests that replace the contract check")
    load_path: str = setting("", "the path the plan's load goes to")
    db_server: str = setting("postgresql", "postgresql or h2")
    versions: dict[str, Any] | None = setting(
        None, "which build input carries the framework version: property, parent or env; lines: a release line's "
              "overlay folder (checked in perflab.apps.versions)")

    @model_validator(mode="before")
    @classmethod
    def _one_smoke_table(cls, data: Any) -> Any:
        """[smoke] (one request) is a list of one."""
        if isinstance(data, dict) and isinstance(data.get("smoke"), dict):
            data = {**data, "smoke": [data["smoke"]]}
        return data

    @field_validator("load_path")
    @classmethod
    def _load_path(cls, value: str) -> str:
        return url_path(value, empty_ok=True)

    @field_validator("db_server")
    @classmethod
    def _db_server(cls, value: str) -> str:
        if value not in DB_SERVERS:
            raise ValueError(f"must be one of {', '.join(DB_SERVERS)}, got {value!r}")
        return value

    @field_validator("startup_log_regex")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if not value:
            return value
        try:
            compiled = re.compile(value)
        except re.error as exc:
            raise ValueError(f"startup_log_regex is not a valid regex: {exc}") from None
        if not {"seconds", "millis"} & set(compiled.groupindex):
            raise ValueError("startup_log_regex needs a group named 'seconds' or 'millis'")
        return value
