"""Shared database folders (a clone under a private folder, as root) do not outlive their work
directory: one whose work directory is gone goes, one still linked, one of unknown owner and one
whose server still runs stay."""

from __future__ import annotations

import os

from perflab import db_home


def _shared(parent, tag, work, pid=None):
    folder = parent / f"perflab-db-{tag}"
    (folder / "db" / "data").mkdir(parents=True)
    if work is not None:
        (folder / db_home.OWNER_FILE).write_text(f"{work}\n")
    if pid is not None:
        (folder / "db" / "data" / "postmaster.pid").write_text(f"{pid}\n/somewhere\n")
    return folder


def test_only_the_folders_of_deleted_work_directories_are_removed(tmp_path):
    parent = tmp_path / "shared"
    live_work = tmp_path / "clone" / ".perflab"
    live_work.mkdir(parents=True)
    linked = _shared(parent, "linked", live_work)
    (live_work / "db").symlink_to(linked / "db", target_is_directory=True)
    deleted = _shared(parent, "deleted", tmp_path / "gone" / ".perflab")
    relinked = _shared(parent, "relinked", live_work.parent)  # its work dir exists but has no link to it
    unknown = _shared(parent, "unknown", None)
    running = _shared(parent, "running", tmp_path / "gone2", pid=os.getpid())
    dead_server = _shared(parent, "dead", tmp_path / "gone3", pid=2**22 + 7)  # above pid_max: no such process

    removed = db_home.remove_orphans((parent,))

    assert sorted(removed) == sorted([deleted, relinked, dead_server])
    assert not deleted.exists() and not relinked.exists() and not dead_server.exists()
    assert linked.exists() and unknown.exists() and running.exists()
