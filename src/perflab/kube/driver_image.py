"""The load driver's image: the lab's pinned oha build (perflab.drivers.oha) and the C libraries it
links, layered as a native app's binary is, named by oha's version (never `latest`).

`placement.images` treats it as it treats the apps' images: "prebuilt" names it for the nodes to
have, "tarball" writes it under .perflab/images/ to load into them, "push" is refused as for every
image that is not Jib's (the error says how to push the tarball).
"""

from __future__ import annotations

from perflab.drivers.install import OHA_VERSION
from perflab.drivers.oha import ensure_oha
from perflab.kube import images, manifests

LABEL = "load driver"  # its key among the run's images (and in the run's record of them)


def reference(registry: str) -> str:
    return manifests.image_name("driver", "oha", registry, OHA_VERSION)


def build(how: str, registry: str, log: images.Log = print) -> images.Built:
    """Write the driver's image tarball (how = "tarball"), unless this version's is there already."""
    image = reference(registry)
    if how == "push":
        raise images.not_pushed(LABEL, image)
    out = images.tarball_path(image)
    if out.is_file():
        log(f"{LABEL}: image {image} written before: {out}")
        return images.Built(image, out)
    images.native_image(ensure_oha(log=log), image, out, f"oha {OHA_VERSION}")
    return images.written(out, image, LABEL, log)
