"""Deleting a prompt (for good, leaving a sync tombstone) and deleting an empty session.

Observations have their own soft/hard delete in :mod:`engram.memory.observation`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from engram.errors import EngramError
from engram.memory.clock import stamp, utc_now
from engram.store import prompts
from engram.store.db import Store
from engram.store.removal import delete_empty_session


@dataclass(frozen=True, slots=True)
class Removed:
    """What was deleted: ``kind`` (``prompt`` or ``session``) and its id."""

    kind: str
    id: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def delete_prompt(store: Store, prompt_id: int, *, now: datetime | None = None) -> Removed:
    """Delete a prompt permanently.

    Raises:
        EngramError: ``memory.prompt_not_found``.
    """
    with store.write() as conn:
        found = prompts.delete(conn, prompt_id, stamp(now or utc_now()))
    if not found:
        raise EngramError(
            "memory.prompt_not_found",
            f"prompt #{prompt_id} does not exist",
            "check the id shown by `engram context`",
        )
    return Removed("prompt", str(prompt_id))


def delete_session(store: Store, session_id: str) -> Removed:
    """Delete a session that holds no observations or prompts.

    Raises:
        EngramError: ``memory.unknown_session`` or ``memory.session_not_empty``.
    """
    with store.write() as conn:
        outcome = delete_empty_session(conn, session_id)
    if outcome == "missing":
        raise EngramError(
            "memory.unknown_session",
            f"session {session_id!r} does not exist",
            "check the id shown by `engram context`",
        )
    if outcome == "not_empty":
        raise EngramError(
            "memory.session_not_empty",
            f"session {session_id!r} still holds observations or prompts; nothing was deleted",
            "delete them first (`engram delete <obs_id> --hard`, `engram delete prompt <id>`)",
        )
    return Removed("session", session_id)
