"""Bring your own app: measure any HTTP service that no one here wrote, given as a jar or a
command plus the URL to load. The lab writes a descriptor for it in the work directory (no build,
no conformance suite) and a plan with the start-up, memory, sweep and latency scenarios on that
URL, with the durations of a base plan (quick by default). Its check is readiness alone (an API of
its own, no smoke requests). A service with a descriptor of its own (own database, smoke requests,
placeholders) is given with --app-dir instead (perflab.apps.descriptors); both can run together."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path
from urllib.parse import urlsplit

from perflab import apps, plan as plans
from perflab.errors import LabError
from perflab.paths import work_dir
from perflab.settings import Plan

SCENARIOS = ["footprint", "startup", "memory", "sweep", "latency"]


def _toml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(_toml_str(v) for v in values) + "]"


def make_app(*, jar: str | None, cmd: str | None, url: str, ready_url: str | None, name: str | None,
             jdk: int) -> tuple[Path, str, str]:
    """Write the descriptor; returns (apps folder, app name, path to load)."""
    if bool(jar) == bool(cmd):
        raise LabError("give exactly one of --app-jar PATH or --app-cmd \"COMMAND\"")
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost") or not parts.port:
        raise LabError(f"--url must be http://127.0.0.1:PORT/PATH on this machine, got {url!r}",
                       fix="the lab starts the app itself and loads it over loopback only")
    ready = urlsplit(ready_url) if ready_url else parts
    if ready_url and ready.port != parts.port:
        raise LabError("--ready-url must use the same port as --url")
    path = parts.path or "/"
    if jar:
        jar_path = Path(jar).expanduser().resolve()
        if not jar_path.is_file():
            raise LabError(f"no jar at {jar_path}")
        label = name or jar_path.stem
        artifact, sources, framework = str(jar_path), [str(jar_path)], "your jar"
        command = ["{java}", "{jvm_opts}", "-jar", "{artifact}"]
        jdk_line = f"jdk = {jdk}\n"
    else:
        argv = shlex.split(cmd)
        if not argv or shutil.which(argv[0]) is None and not Path(argv[0]).exists():
            raise LabError(f"cannot find the command {argv[0] if argv else cmd!r}")
        label = name or Path(argv[0]).name
        exe = shutil.which(argv[0]) or str(Path(argv[0]).resolve())
        artifact, sources, framework = exe, [exe], "your command"
        command, jdk_line = argv, ""
    app_name = "byo-" + re.sub(r"[^a-z0-9-]+", "-", label.lower()).strip("-")[:40]
    root = work_dir() / "byo"
    folder = root / app_name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "perflab.toml").write_text(
        f"# written by perflab run for a service brought by the user\n"
        f"name = {_toml_str(app_name)}\napi = \"own\"\nframework = {_toml_str(framework)}\nframework_version = \"\"\n"
        f"sources = {_toml_list(sources)}\nready_path = {_toml_str(ready.path or '/')}\n"
        f"first_response_path = {_toml_str(path)}\nport = {parts.port}\n\n"
        f"[build]\ncommand = [\"true\"]\nartifact = {_toml_str(artifact)}\n\n"
        f"[modes.{'jvm' if jar else 'cmd'}]\n{jdk_line}command = {_toml_list(command)}\n")
    return root, app_name, path


def make_plan(base: str, app_name: str, path: str, app_dirs: list[str] = ()) -> Plan:
    """The base plan's durations on the brought service's URL (every loaded path set to it); the
    apps of app_dirs (--app-dir) run beside it with their own descriptors."""
    data = plans.retarget(dict(plans.load(base).data), path)
    data.update({
        "name": f"byo-{base}", "apps": [app_name], "modes": ["all"], "scenarios": SCENARIOS,
        "mode_scenarios": {}, "app_dirs": [str(apps.load_dir(d).dir) for d in app_dirs],
        "reductions": list(data["reductions"]) + ["a service brought by the user: no contract check, one URL loaded"],
    })
    return plans.validate(data, f"byo on {base}")
