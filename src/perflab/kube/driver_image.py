"""The load driver's image: the lab's pinned oha build (perflab.drivers.oha), the keeper that holds
the driver's pod open while the lab runs oha in it by exec (perflab.kube.keeper, a static Go
program), and the C libraries oha links; named by oha's version and the keeper's source (never
`latest`).

`placement.images` treats it as it treats the apps' images: "prebuilt" names it for the nodes to
have, "tarball" writes it under .perflab/images/ to load into them, "push" is refused as for every
image that is not Jib's (the error says how to push the tarball).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from perflab.drivers.install import OHA_VERSION, exclusive_lock
from perflab.drivers.oha import ensure_oha
from perflab.errors import LabError
from perflab.kube import base, images, manifests, oci
from perflab.paths import cache_dir

LABEL = "load driver"  # its key among the run's images (and in the run's record of them)
KEEPER_SOURCE = Path(__file__).parent / "keeper"
OHA_AT, KEEPER_AT = manifests.DRIVER_OHA, f"{images.APP_DIR}/keeper"


def keeper_digest() -> str:
    h = hashlib.sha256()
    for name in ("go.mod", "main.go"):
        h.update((KEEPER_SOURCE / name).read_bytes())
    return h.hexdigest()[:10]


def reference(registry: str) -> str:
    return manifests.image_name("driver", "oha", registry, f"{OHA_VERSION}-{keeper_digest()}")


def ensure_keeper(log: images.Log = print) -> Path:
    """The keeper's static binary, built once per source into the lab's cache."""
    out = cache_dir() / "keeper" / f"keeper-{keeper_digest()}"
    if out.is_file():
        return out
    go = shutil.which("go")
    if go is None:
        raise LabError("the load driver's image holds a small Go program (its pod's keeper), and Go is not on PATH",
                       fix="install Go (apt-get install golang, or ./perflab doctor --install as root)")
    out.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(cache_dir() / "locks" / "keeper.lock"):
        if out.is_file():
            return out
        log("load driver: building its pod's keeper (Go, static)")
        partial = out.with_suffix(".part")
        done = subprocess.run([go, "build", "-trimpath", "-o", str(partial), "."], cwd=KEEPER_SOURCE,
                              env={**os.environ, "CGO_ENABLED": "0", "GOWORK": "off", "GOFLAGS": "-mod=mod"},
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise LabError(f"the load driver's keeper did not build: {(done.stderr or done.stdout).strip()[-600:]}")
        partial.replace(out)
    return out


def build(how: str, registry: str, log: images.Log = print) -> images.Built:
    """Write the driver's image tarball (how = "tarball"), unless this version's is there already."""
    image = reference(registry)
    if how == "push":
        raise images.not_pushed(LABEL, image)
    out = images.tarball_path(image)
    if out.is_file():
        log(f"{LABEL}: image {image} written before: {out}")
        return images.Built(image, out)
    oha, keeper = ensure_oha(log=log), ensure_keeper(log)
    with tempfile.TemporaryDirectory(dir=base.images_dir()) as work:
        layer = oci.write_layer([*base.SYSTEM, oci.Entry(OHA_AT, source=oha, mode=0o755),
                                 oci.Entry(KEEPER_AT, source=keeper, mode=0o755), *base.shared_libraries([oha])],
                                Path(work))
        oci.write_image(out, image, [layer], oci.ImageConfig(entrypoint=[KEEPER_AT], working_dir=images.APP_DIR),
                        history=[f"perflab: oha {OHA_VERSION}, the keeper of the driver's pod and the C libraries "
                                 "oha links"])
    return images.written(out, image, LABEL, log)
