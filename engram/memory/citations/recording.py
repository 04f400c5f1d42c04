"""Recording what a saved observation cites: the one call every write path makes.

Called inside the save's (or update's) write transaction, after the row is written.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime

from engram.memory.clock import stamp
from engram.store.records import Observation


def record_citations(
    conn: sqlite3.Connection,
    observation: Observation,
    workspace: str | None,
    now: datetime,
    *,
    fresh: bool = False,
) -> None:
    """Record what ``observation`` cites in the repository enclosing ``workspace`` (default:
    the working directory); outside a repository, or with citations off, it cites nothing.
    ``fresh``: the row was just inserted, so it has no citations to replace."""
    from engram.memory.citations.status import finding_enabled

    if not finding_enabled():
        return
    from engram.memory.citations.finding import find_citations, mentions_paths
    from engram.store import citations

    text = f"{observation.title}\n{observation.content}"
    found = []
    if mentions_paths(text):
        from engram.memory.git_repo import find_git_repo

        try:
            folder = workspace if workspace is not None else os.getcwd()
            repo = find_git_repo(folder)
        except OSError:  # the working directory was removed under us
            repo = None
        if repo is not None:
            found = find_citations(repo, text, stamp(now), folder)
    if found or not fresh:
        citations.replace_for(conn, observation.id, found)
