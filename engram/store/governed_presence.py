"""Whether a project has governed knowledge at all: the one probe a session start runs.

Most projects have none, and :mod:`engram.store.governed` (every other governed statement) is
large enough that loading it costs a hook process more than the probe: SessionStart asks here
first and imports the rest only for a project that has something to load.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    import sqlite3


def has_active_memories(conn: sqlite3.Connection, project: str) -> bool:
    """Whether any active memory, durable or working (expired or not), is visible from
    ``project``: one indexed probe, so a caller can skip loading when there is none."""
    row = conn.execute(
        "SELECT 1 FROM governed_memories WHERE project IN (?, '') AND status = 'active' LIMIT 1",
        (project,),
    ).fetchone()
    return row is not None
