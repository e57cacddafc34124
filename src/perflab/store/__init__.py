"""Results: every figure is written to SQLite the moment it is measured (a crash loses at most the
point in flight), with raw driver output and samples as files beside it and the environment and the
full plan of the run. Versioned: SCHEMA_VERSION changes when the layout does.

A run's *method* (plan, limits, topology, versions) is hashed; runs with different method hashes
are not comparable and the compare/report code says so.

The Store opens the file (schema), writes runs (writes), reads them back (reads) and answers how
long things take here (estimates); records holds what it hands back, method the method hash. With
PERFLAB_RESULTS=postgresql://... the same tables live in a team's PostgreSQL instead (postgresql).
"""

from __future__ import annotations

from pathlib import Path

from perflab.paths import work_dir
from perflab.store.estimates import PACE_LEAST_ESTIMATE_S, MachineEstimates
from perflab.store import postgresql
from perflab.store.method import ROUNDS_NOT_METHOD, method_hash
from perflab.store.reads import RunReads
from perflab.store.records import NO_POINT, Figure, Point, point
from perflab.store.schema import SCHEMA_VERSION, Upgrade, connect, schema_statements
from perflab.store.writes import RunWrites, write_rounds

__all__ = ["NO_POINT", "PACE_LEAST_ESTIMATE_S", "ROUNDS_NOT_METHOD", "SCHEMA_VERSION", "Figure", "Point", "Store",
           "Upgrade", "method_hash", "point", "schema_statements", "write_rounds"]


class Store(RunWrites, RunReads, MachineEstimates):
    def __init__(self, path: Path | None = None, upgrade: Upgrade | None = None, *, url: str | None = None):
        """`upgrade`: how a file of an older schema is brought up to this one; the lab's commands hand
        in perflab.migrate.upgrade (migrate.open_store), which needs the plan schema and the registry.
        Without it such a file is refused. `url`: a PostgreSQL database instead of the file; without
        a path, PERFLAB_RESULTS gives it. A run's files stay under the work directory either way."""
        self.path = path or work_dir() / "results.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        url = url or (postgresql.wanted_url() if path is None else None)
        self.db = postgresql.connect(url) if url else connect(self.path, upgrade)
        self.where = self.db.url if url else str(self.path)  # what messages name: the file or the database

    def close(self) -> None:
        self.db.close()
