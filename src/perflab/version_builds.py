"""Whether a framework version of an app builds here: building app@version, and when it fails, the
build tool's own reason (the missing artifact, else its first error line), kept beside the build
stamps so `perflab versions APP` can say which versions build here and why the others do not."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from perflab.apps import libraries
from perflab.apps.building import build as build_app
from perflab.apps.descriptors import get
from perflab.apps.versions import SEPARATOR, is_version, release_key, split_name, versions_dir
from perflab.errors import LabError
from perflab.paths import work_dir


def _outcome_path(name: str) -> Path:
    return versions_dir() / f"{name}.json"


def record(name: str, ok: bool, why: str = "") -> None:
    """Whether app@version built here (and if not, the missing artifact or the first error)."""
    app, version = split_name(name)
    _outcome_path(name).write_text(json.dumps({"app": app, "version": version, "builds": ok, "why": why,
                                               "at": time.time()}, indent=2))


def known(app: str) -> list[dict]:
    """The versions of `app` tried here, in release order."""
    found = []
    for path in versions_dir().glob(f"{app}{SEPARATOR}*.json"):
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if entry.get("app") == app and is_version(entry.get("version")):
            found.append(entry)
    return sorted(found, key=lambda e: release_key(e["version"]))


# What a build tool says when the registry lacks something, most specific first.
_MISSING = [re.compile(p) for p in (
    r"Could not find artifact \S+",
    r"artifacts? could not be resolved: [^\n]*?(?=: Could not|\n|$)",
    r"Non-resolvable (?:parent|import) POM[^\n]*",
    r"Plugin \S+ or one of its dependencies could not be resolved[^\n]*",
    r"\S+:\S+:\S+ was not found in \S+",  # a failure Maven cached from an earlier attempt
)]


def failure_reason(log_text: str) -> str:
    """The build's own words for why it failed: the missing artifact, else its first error line
    that says something (not a heading such as "Some problems were encountered ...:")."""
    for pattern in _MISSING:
        found = pattern.search(log_text)
        if found:
            return found.group(0).strip()
    for line in log_text.splitlines():
        text = re.sub(r"^(\[ERROR\]\s*)+", "", line.strip()).strip()
        if line.lstrip().startswith("[ERROR]") and text and not text.endswith(":") and not text.startswith("@"):
            return text
    for line in log_text.splitlines():  # go build, javac and others: the first line that says error
        if re.search(r"\berror\b|cannot find|undefined:|not found", line, re.I):
            return line.strip()
    lines = [line.strip() for line in log_text.splitlines() if line.strip()]
    return lines[0] if lines else "the build failed without output"


def what_was_built(builds: dict, variants: dict) -> dict:
    """For a run's environment, of each app@version built: the libraries its artifact bundles
    ("libraries": name -> {"group:artifact": version}, read from the artifact, perflab.apps.libraries)
    and the release line's overlay it was built from ("overlays": name -> folder and files), so the
    report by version can say what else changed with the framework's version. Empty without versions."""
    libs, overlays = {}, {}
    for key, result in builds.items():
        app = variants.get(key)
        if app is None or key != app.name or not split_name(key)[1]:
            continue  # not a version, or a mode's own build (e.g. native): its jars are the same version's
        libs[key] = libraries.bundled(Path(result.artifact))
        if app.overlay:
            overlays[key] = {"folder": app.overlay, "files": list(app.overlay_files)}
    return {"libraries": libs, "overlays": overlays} if libs else {}


class Unavailable(LabError):
    """A version that does not build here (the registry lacks an artifact, or the compiler refused it)."""


def build(app, log=print):
    """Build the app; for app@version, record whether it built, and for it or an A/B revision turn a
    failure into Unavailable with the build's own reason, so the plan goes on with the others."""
    version = split_name(app.name)[1]
    if not version:
        return build_app(app, log=log)
    try:
        result = build_app(app, log=log)
    except LabError as exc:
        log_path = work_dir() / "logs" / f"build-{app.build_key}.log"
        text = log_path.read_text(errors="replace") if log_path.exists() else str(exc)
        why = f"{failure_reason(text)} (log: {log_path})" if log_path.exists() else str(exc)
        if is_version(version):
            record(app.name, False, why)
        raise Unavailable(f"{app.name} does not build here: {why}") from exc
    if is_version(version):  # `perflab versions APP` lists framework versions, not an A/B run's revisions
        record(app.name, True)
    return result


def cli_versions(args) -> int:
    """`perflab versions APP`: the versions tried here, whether each built, and if not why."""
    app = get(args.app)
    tried = known(app.name)
    print(f"{app.name}: {app.framework} {app.framework_version} (its own version)"
          + ("" if app.versions else "; its perflab.toml has no [versions]: it is built at that version only"),
          flush=True)
    for prefix, folder in (app.versions.lines.items() if app.versions else ()):
        print(f"  versions {prefix}.x build with the files under {folder}/ in place of the app's own", flush=True)
    if not tried:
        print("  no other version tried here yet: perflab run PLAN --versions "
              f"{app.name}=VERSION[,VERSION...] builds each once", flush=True)
    for entry in tried:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.get("at", 0)))
        state = "builds" if entry.get("builds") else f"unavailable: {entry.get('why', '?')}"
        print(f"  {entry['version']:<14} {state}  (tried {when})", flush=True)
    return 0
