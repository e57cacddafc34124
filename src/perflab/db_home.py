"""Where the lab's private PostgreSQL keeps its files.

PostgreSQL refuses to run as root, so as root the lab runs it as the unprivileged 'postgres' user,
which must be able to enter every folder above the cluster's. A clone under a private folder (a
fresh machine's /root is mode 700) cannot hold the cluster: then its files go to a folder of the
lab's own under /var/tmp (or /tmp), named after the work directory so that every command of the
same work directory finds the same cluster.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import shutil
from pathlib import Path

from perflab import procs
from perflab.errors import LabError
from perflab.paths import work_dir

SERVER_USER = "postgres"  # the unprivileged account Debian's postgresql package creates
SHARED_PARENTS = (Path("/var/tmp"), Path("/tmp"))  # world-enterable on every Linux machine
OWNER_FILE = "workdir"  # in a shared folder: the work directory it was made for


def blocking_folder(path: Path, user: str = SERVER_USER) -> Path | None:
    """The first existing folder at or above `path` that `user` cannot enter (None: every one can).
    Folders below `path` that do not exist yet are created by the lab with the right owner."""
    pw = pwd.getpwnam(user)
    groups = set(os.getgrouplist(user, pw.pw_gid))
    for folder in [path, *path.parents]:
        try:
            st = folder.stat()
        except FileNotFoundError:
            continue
        if pw.pw_uid == 0:
            continue
        if st.st_uid == pw.pw_uid:
            allowed = st.st_mode & 0o100
        elif st.st_gid in groups:
            allowed = st.st_mode & 0o010
        else:
            allowed = st.st_mode & 0o001
        if not allowed:
            return folder
    return None


def server_user_exists() -> bool:
    try:
        pwd.getpwnam(SERVER_USER)
        return True
    except KeyError:
        return False


def needs_server_user() -> bool:
    """Only root hands the cluster to the 'postgres' user; anyone else runs it as themselves."""
    return os.geteuid() == 0 and server_user_exists()


def shared_root(work: Path) -> Path:
    """The lab's own folder for this work directory's cluster, outside any private folder."""
    tag = hashlib.sha256(str(work.resolve()).encode()).hexdigest()[:10]
    for parent in SHARED_PARENTS:
        if parent.is_dir() and blocking_folder(parent) is None:
            return parent / f"perflab-db-{tag}" / "db"
    return SHARED_PARENTS[0] / f"perflab-db-{tag}" / "db"


def cluster_root(work: Path | None = None) -> Path:
    """Where the work directory's cluster is: <work>/db, or where that link points once the
    cluster's files were placed elsewhere (see place)."""
    own = (work or work_dir()) / "db"
    return own.resolve() if own.is_symlink() else own


def place(work: Path | None = None) -> tuple[Path, Path | None]:
    """Where a private server's files go, and the folder that sent them elsewhere (None: they stay).

    As root, when the database's user cannot reach <work>/db, its files go to a shared folder of the
    lab's own and <work>/db becomes a link to it, so every later command of this work directory
    finds them there."""
    work = work or work_dir()
    own = work / "db"
    if own.is_symlink() or not needs_server_user():
        return cluster_root(work), None
    blocked = blocking_folder(own)
    if blocked is None:
        return own, None
    if (own / "data" / "PG_VERSION").exists():
        raise LabError(f"the lab's database in {own} cannot run: the unprivileged '{SERVER_USER}' user cannot enter "
                       f"{blocked}", fix=f"make {blocked} enterable (chmod o+x), or set PERFLAB_WORKDIR elsewhere")
    remove_orphans()
    shared = shared_root(work)
    shared.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(shared.parent, 0o755)
    (shared.parent / OWNER_FILE).write_text(f"{work.resolve()}\n")
    if own.exists():  # only the record of a server given by URL: it moves with the rest
        shutil.rmtree(own)
    own.parent.mkdir(parents=True, exist_ok=True)
    own.symlink_to(shared, target_is_directory=True)
    return shared, blocked


def _server_running(cluster: Path) -> bool:
    """A PostgreSQL whose postmaster.pid names a live process still uses the cluster (as
    postgres.Cluster.server_pid reads it; that module builds on this one)."""
    try:
        pid = int((cluster / "data" / "postmaster.pid").read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return False
    return procs.alive(pid)


def remove_orphans(parents: tuple[Path, ...] = SHARED_PARENTS) -> list[Path]:
    """Remove the shared folders whose work directory is gone (or no longer links to them): their
    cluster can never be used again, and a deleted clone should not leave its database behind. A
    folder that does not say whose it is, or whose server still runs, is left alone."""
    removed = []
    for parent in parents:
        for folder in sorted(parent.glob("perflab-db-*")):
            try:
                work = Path((folder / OWNER_FILE).read_text().strip())
            except OSError:
                continue
            link = work / "db"
            if link.is_symlink() and link.resolve() == (folder / "db").resolve():
                continue
            if _server_running(folder / "db"):
                continue
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
