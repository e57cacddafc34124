"""Writing and reading OCI image tarballs without a container engine.

An image written here is an OCI image layout in one tar (oci-layout, index.json, blobs/sha256/...)
that also carries Docker's manifest.json, as `docker save` writes since Docker 25: containerd
(`ctr -n k8s.io images import`), `kind load image-archive`, `docker load` and Jib's `tar://` base
images all read it. Layers are reproducible (sorted entries, owner root, one fixed mtime, gzip
without a timestamp), so the same files give the same digest and a node stores a shared layer once.

`inspect` reads an image tarball (this module's, or Jib's Docker or OCI output) and checks what a
runtime checks on import: every digest and size, and that each layer's uncompressed digest is the
config's diff_id.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import stat
import tarfile
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Iterable

from perflab.errors import LabError

MTIME = 1  # what Jib stamps on its reproducible layers (the epoch + 1 s)
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
OCI_LAYER_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip"
NAME_ANNOTATION = "io.containerd.image.name"  # the name containerd imports the image under
REF_ANNOTATION = "org.opencontainers.image.ref.name"


@dataclass(frozen=True)
class Entry:
    """One file in a layer: a copy of `source`, literal `data`, a symlink, or a directory."""

    path: str  # absolute, in the image
    source: Path | None = None
    data: bytes | None = None
    link: str | None = None
    mode: int = 0o644

    @property
    def is_dir(self) -> bool:
        return self.source is None and self.data is None and self.link is None


def tree(source: Path, at: str) -> list[Entry]:
    """Entries for a directory tree copied to `at`, modes kept. Symlinks inside the tree stay links;
    one pointing out of it (e.g. a JDK's cacerts into /etc) is replaced by a copy of its target."""
    out = [Entry(at, mode=0o755)]
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source).as_posix()
        dest = f"{at.rstrip('/')}/{rel}"
        if path.is_symlink():
            target = os.readlink(path)
            resolved = (path.parent / target).resolve()
            if not os.path.isabs(target) and resolved.is_relative_to(source.resolve()):
                out.append(Entry(dest, link=target, mode=0o777))
                continue
            if not resolved.exists():
                continue  # a dangling link (e.g. to a package the host lacks): nothing to copy
            path = resolved
        if path.is_dir():
            out.append(Entry(dest, mode=stat.S_IMODE(path.stat().st_mode)))
        else:
            out.append(Entry(dest, source=path, mode=stat.S_IMODE(path.stat().st_mode)))
    return out


@dataclass
class Layer:
    file: Path  # the gzip-compressed layer tar
    digest: str  # sha256:... of the compressed bytes
    diff_id: str  # sha256:... of the uncompressed tar
    size: int


def _parents(paths: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    for p in paths:
        for parent in PurePosixPath(p).parents:
            if str(parent) != "/":
                seen.add(str(parent))
    return sorted(seen)


def write_layer(entries: Iterable[Entry], into: Path) -> Layer:
    """A reproducible gzip'd layer of `entries` (their parent directories added), written into `into`."""
    entries = sorted({e.path: e for e in entries}.values(), key=lambda e: e.path)
    named = {e.path for e in entries}
    dirs = [Entry(p, mode=0o755) for p in _parents(named) if p not in named]
    raw = tempfile.TemporaryFile(dir=into)
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for e in sorted([*dirs, *entries], key=lambda e: e.path):
            info = tarfile.TarInfo(e.path.lstrip("/"))
            info.mtime, info.mode, info.uid, info.gid, info.uname, info.gname = MTIME, e.mode, 0, 0, "", ""
            if e.is_dir:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif e.link is not None:
                info.type, info.linkname = tarfile.SYMTYPE, e.link
                tar.addfile(info)
            elif e.data is not None:
                info.size = len(e.data)
                tar.addfile(info, io.BytesIO(e.data))
            else:
                info.size = e.source.stat().st_size
                with open(e.source, "rb") as f:
                    tar.addfile(info, f)
    raw.seek(0)
    diff = hashlib.sha256()
    fd, name = tempfile.mkstemp(dir=into, suffix=".tar.gz")
    with os.fdopen(fd, "wb") as out:
        with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=6) as gz:
            while chunk := raw.read(1 << 20):
                diff.update(chunk)
                gz.write(chunk)
    raw.close()
    digest = "sha256:" + _sha256_file(Path(name))
    return Layer(Path(name), digest, "sha256:" + diff.hexdigest(), Path(name).stat().st_size)


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def full_name(reference: str) -> str:
    """The name a runtime gives a short reference ('app:1' -> 'docker.io/library/app:1'), which
    is also how the kubelet looks a pod's image up."""
    first = reference.split("/", 1)[0]
    if "/" in reference and ("." in first or ":" in first or first == "localhost"):
        return reference
    return f"docker.io/{reference}" if "/" in reference else f"docker.io/library/{reference}"


@dataclass
class ImageConfig:
    entrypoint: list[str]
    env: dict[str, str] = field(default_factory=dict)
    working_dir: str = "/"
    ports: list[int] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    user: str = ""  # e.g. "65532": an image that pods may run with runAsNonRoot


def write_image(path: Path, reference: str, layers: list[Layer], config: ImageConfig,
                history: list[str] | None = None) -> Path:
    """The image tarball at `path`: OCI layout plus Docker's manifest.json, named `reference`."""
    cfg = {
        "architecture": "amd64", "os": "linux", "created": "1970-01-01T00:00:01Z",
        "config": {"Entrypoint": config.entrypoint, "Env": [f"{k}={v}" for k, v in config.env.items()],
                   "WorkingDir": config.working_dir, "Labels": config.labels,
                   **({"User": config.user} if config.user else {}),
                   "ExposedPorts": {f"{p}/tcp": {} for p in config.ports}},
        "rootfs": {"type": "layers", "diff_ids": [layer.diff_id for layer in layers]},
        "history": [{"created": "1970-01-01T00:00:01Z", "created_by": h} for h in (history or [])],
    }
    cfg_bytes = json.dumps(cfg, sort_keys=True).encode()
    cfg_digest = "sha256:" + hashlib.sha256(cfg_bytes).hexdigest()
    manifest = {"schemaVersion": 2, "mediaType": OCI_MANIFEST,
                "config": {"mediaType": OCI_CONFIG, "digest": cfg_digest, "size": len(cfg_bytes)},
                "layers": [{"mediaType": OCI_LAYER_GZIP, "digest": layer.digest, "size": layer.size}
                           for layer in layers]}
    man_bytes = json.dumps(manifest, sort_keys=True).encode()
    man_digest = "sha256:" + hashlib.sha256(man_bytes).hexdigest()
    name = full_name(reference)
    index = {"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": [{
        "mediaType": OCI_MANIFEST, "digest": man_digest, "size": len(man_bytes),
        "annotations": {NAME_ANNOTATION: name, REF_ANNOTATION: name.rsplit(":", 1)[1]}}]}

    def blob(digest: str) -> str:
        return "blobs/sha256/" + digest.split(":", 1)[1]

    docker = [{"Config": blob(cfg_digest), "RepoTags": [reference],
               "Layers": [blob(layer.digest) for layer in layers]}]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")  # a killed write never looks like an image
    with tarfile.open(partial, "w") as tar:
        _add_bytes(tar, "oci-layout", b'{"imageLayoutVersion":"1.0.0"}')
        _add_bytes(tar, "index.json", json.dumps(index).encode())
        _add_bytes(tar, "manifest.json", json.dumps(docker).encode())
        _add_bytes(tar, blob(cfg_digest), cfg_bytes)
        _add_bytes(tar, blob(man_digest), man_bytes)
        for layer in layers:
            info = tarfile.TarInfo(blob(layer.digest))
            info.size, info.mtime = layer.size, MTIME
            with open(layer.file, "rb") as f:
                tar.addfile(info, f)
    partial.replace(path)
    return path


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime = len(data), MTIME
    tar.addfile(info, io.BytesIO(data))


@dataclass
class Image:
    """What an image tarball holds, checked."""

    names: list[str]
    config: dict
    layers: list[list[tarfile.TarInfo]]  # each layer's entries, in order

    @property
    def entrypoint(self) -> list[str]:
        return list(self.config.get("config", {}).get("Entrypoint") or [])

    @property
    def cmd(self) -> list[str]:
        return list(self.config.get("config", {}).get("Cmd") or [])

    @property
    def env(self) -> dict[str, str]:
        return dict(e.split("=", 1) for e in self.config.get("config", {}).get("Env") or [])

    def files(self) -> dict[str, tarfile.TarInfo]:
        """The image's file system as the runtime unpacks it: later layers win."""
        out: dict[str, tarfile.TarInfo] = {}
        for layer in self.layers:
            for info in layer:
                out["/" + info.name.lstrip("./").rstrip("/")] = info
        return out


class BadImage(LabError):
    pass


def inspect(path: Path) -> Image:
    """Read and check an image tarball (OCI layout or Docker archive): raises BadImage on any
    digest, size or diff_id that does not match."""
    with tarfile.open(path) as tar:
        members = {m.name.lstrip("./"): m for m in tar.getmembers()}

        def read(name: str) -> bytes:
            if name not in members:
                raise BadImage(f"{path.name}: {name} is missing")
            return tar.extractfile(members[name]).read()

        def checked(name: str, digest: str, size: int | None = None) -> bytes:
            data = read(name)
            if "sha256:" + hashlib.sha256(data).hexdigest() != digest:
                raise BadImage(f"{path.name}: {name} does not have the digest {digest}")
            if size is not None and len(data) != size:
                raise BadImage(f"{path.name}: {name} is {len(data)} bytes, its descriptor says {size}")
            return data

        if "index.json" in members:
            index = json.loads(read("index.json"))
            if not index.get("manifests"):
                raise BadImage(f"{path.name}: index.json lists no manifest")
            desc = index["manifests"][0]
            manifest = json.loads(checked(_blob(desc["digest"]), desc["digest"], desc["size"]))
            names = [n for n in (desc.get("annotations") or {}).get(NAME_ANNOTATION, "").split(",") if n]
            cfg_desc = manifest["config"]
            config = json.loads(checked(_blob(cfg_desc["digest"]), cfg_desc["digest"], cfg_desc["size"]))
            blobs = [(_blob(d["digest"]), d["digest"], d["size"]) for d in manifest["layers"]]
            if "manifest.json" in members:
                names += [t for e in json.loads(read("manifest.json")) for t in e.get("RepoTags") or []]
        elif "manifest.json" in members:  # Docker's archive: blob names are not digests
            entry = json.loads(read("manifest.json"))[0]
            names = list(entry.get("RepoTags") or [])
            config = json.loads(read(entry["Config"]))
            blobs = [(name, None, None) for name in entry["Layers"]]
        else:
            raise BadImage(f"{path.name}: neither index.json (OCI) nor manifest.json (Docker archive)")
        diff_ids = config.get("rootfs", {}).get("diff_ids", [])
        if len(diff_ids) != len(blobs):
            raise BadImage(f"{path.name}: {len(blobs)} layers but {len(diff_ids)} diff_ids in the config")
        layers = [_layer(tar, members, path.name, blob, diff_id) for blob, diff_id in zip(blobs, diff_ids)]
    return Image(names, config, layers)


class _Hashing(io.RawIOBase):
    """A reader that hashes what passes through it (layers are checked without being held in memory)."""

    def __init__(self, source):
        self.source, self.sha, self.size = source, hashlib.sha256(), 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.source.read(len(buffer))
        buffer[:len(data)] = data
        self.sha.update(data)
        self.size += len(data)
        return len(data)

    def drain(self) -> str:
        while self.read(1 << 20):
            pass
        return "sha256:" + self.sha.hexdigest()


def _layer(tar: tarfile.TarFile, members: dict, image: str, blob: tuple, diff_id: str) -> list[tarfile.TarInfo]:
    name, digest, size = blob
    if name not in members:
        raise BadImage(f"{image}: layer {name} is missing")
    stored = _Hashing(tar.extractfile(members[name]))
    head = io.BufferedReader(stored)
    compressed = head.peek(2)[:2] == b"\x1f\x8b"
    plain = _Hashing(gzip.GzipFile(fileobj=head) if compressed else head)
    try:
        with tarfile.open(fileobj=io.BufferedReader(plain), mode="r|") as layer:
            entries = list(layer)
        unpacked = plain.drain()
    except (EOFError, OSError, zlib.error, tarfile.TarError) as exc:  # a truncated or corrupt layer
        raise BadImage(f"{image}: layer {name} cannot be unpacked: {exc}") from None
    if unpacked != diff_id:
        raise BadImage(f"{image}: layer {name} does not match its diff_id {diff_id}")
    while head.read(1 << 20):
        pass
    if digest is not None and (stored.drain() != digest or stored.size != size):
        raise BadImage(f"{image}: layer {name} does not have the digest {digest} and size {size}")
    return entries


def _blob(digest: str) -> str:
    algo, _, hexdigest = digest.partition(":")
    return f"blobs/{algo}/{hexdigest}"
