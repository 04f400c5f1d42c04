"""Stale memories: those whose cited code is gone or moved, with the fix for each.

:func:`list_stale` is what ``engram review --stale`` and ``mem_review`` action ``stale`` call.
Every memory that cites code is checked (:mod:`engram.memory.citations`), a page at a time;
each stale one comes back with its reasons and the two fixes: update the citation (the memory
saved again with the new path or name re-records it), or delete the memory.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engram.memory.citations.checking import code_status
from engram.memory.citations.status import CodeStatus
from engram.memory.review import DEFAULT_REVIEW_LIMIT, MAX_REVIEW_LIMIT, state_with_code
from engram.store import citations, observations
from engram.store.db import Store
from engram.store.records import Observation, Record, record

PAGE = 200


@record
class StaleItem(Record):
    """A stale memory, why, and how to fix it."""

    observation: Observation
    state: str
    code: CodeStatus

    @property
    def fixes(self) -> tuple[str, str]:
        """The update and the delete command for this memory."""
        oid = self.observation.id
        return (
            f"engram update {oid} --content '...' (cite the new path or name), or mem_update",
            f"engram delete {oid} (or mem_delete) if the memory no longer holds",
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the observation's fields, ``state``, ``reasons`` and ``fixes``."""
        return {
            **self.observation.to_dict(),
            "state": self.state,
            "reasons": list(self.code.reasons),
            "fixes": list(self.fixes),
        }


def list_stale(
    store: Store,
    *,
    project: str | None = None,
    limit: int = DEFAULT_REVIEW_LIMIT,
    now: datetime | None = None,
) -> list[StaleItem]:
    """Up to ``limit`` (at most 100) stale memories of ``project`` (every project when None),
    oldest first."""
    limit = DEFAULT_REVIEW_LIMIT if limit <= 0 else min(limit, MAX_REVIEW_LIMIT)
    found: list[StaleItem] = []
    after = 0
    while len(found) < limit:
        with store.locked() as conn:
            ids = citations.cited_observation_ids(conn, project=project, after_id=after, limit=PAGE)
            rows = observations.get_many(conn, ids)
        if not ids:
            break
        after = ids[-1]
        codes = code_status(store, ids)
        for oid in ids:
            code, row = codes.get(oid), rows.get(oid)
            if code is not None and code.stale and row is not None:
                found.append(StaleItem(row, state_with_code(row, code, now), code))
    return found[:limit]
