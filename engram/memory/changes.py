"""What is new in a project's memory since a point the caller remembers.

The hook runtime keeps, per host session, the newest observation id it has shown; on each prompt
it asks for observations saved after it, so the model sees only what changed. On the hook path:
imports only the store.
"""

from __future__ import annotations

from engram.store import observations
from engram.store.db import Store
from engram.store.records import Observation

MAX_LIMIT = 50


def recent_observations(
    store: Store, *, project: str | None, limit: int = 10, after_id: int = 0
) -> list[Observation]:
    """Newest live observations first; only those with ``id > after_id`` when it is > 0.

    ``limit`` is clamped to 1..50. Observations revised in place keep their id and are not
    "new".
    """
    size = min(max(limit, 1), MAX_LIMIT)
    rows = observations.recent(store.connection, project=project, limit=size)
    return [row for row in rows if row.id > after_id] if after_id > 0 else rows
