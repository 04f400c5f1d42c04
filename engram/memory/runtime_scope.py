"""Resolve or end a runtime session by its runtime context (``POST /runtime-sessions/...``).

A host that resumes a session keeps the id it started with, while the root may already have
ended and its work continue in ``<root>:resume:N`` (see :mod:`engram.memory.runtime_sessions`).
These operations find the live identity for ``(id, project, directory)`` without ever creating
or repairing one:

- the root itself when it is live; for an ended root, its lowest-numbered live continuation;
- the root and the selected continuation must both belong to the caller's project and
  directory, else ``memory.runtime_scope_conflict`` (409) and nothing changes;
- no root, or no live identity left, is ``memory.no_live_session`` (404).

``end`` ends the selected identity (with an optional summary) in one write transaction.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engram.errors import EngramError
from engram.memory.clock import stamp, utc_now
from engram.memory.redaction import clean, content_limit
from engram.memory.runtime_sessions import check_ownership_mode, numbered_continuations
from engram.store import sessions
from engram.store.records import Session

if TYPE_CHECKING:
    from engram.store.db import Store


@dataclass(frozen=True, slots=True)
class RuntimeIdentity:
    """The live identity a runtime context selects.

    Attributes:
        id: the effective session id.
        requested: the id the caller sent (the root).
        ended: True when this call ended it.
    """

    id: str
    requested: str
    ended: bool = False

    def to_dict(self) -> dict[str, Any]:
        """``{id, status: resolved|ended}`` plus ``resumed_from`` for a continuation."""
        data: dict[str, Any] = {"id": self.id, "status": "ended" if self.ended else "resolved"}
        if self.id != self.requested:
            data["resumed_from"] = self.requested
        return data


def resolve_runtime_session(
    store: Store,
    session_id: str,
    *,
    project: str,
    directory: str,
    ownership_mode: str | None = None,
) -> RuntimeIdentity:
    """The live identity of ``(session_id, project, directory)`` (see the module docstring).

    Raises:
        EngramError: ``memory.runtime_context_required``, ``memory.bad_ownership_mode``,
            ``memory.runtime_scope_conflict``, ``memory.no_live_session``.
    """
    sid, project, directory = _context(session_id, project, directory, ownership_mode)
    with store.read() as conn:
        live = _select(conn, sid, project, directory)
    return RuntimeIdentity(live.id, sid)


def end_runtime_session(
    store: Store,
    session_id: str,
    *,
    project: str,
    directory: str,
    ownership_mode: str | None = None,
    summary: str | None = None,
    now: datetime | None = None,
) -> RuntimeIdentity:
    """End the live identity of ``(session_id, project, directory)``.

    Raises:
        EngramError: as :func:`resolve_runtime_session`.
    """
    sid, project, directory = _context(session_id, project, directory, ownership_mode)
    text = clean(summary, content_limit()).text if summary and summary.strip() else None
    with store.write() as conn:
        live = _select(conn, sid, project, directory)
        sessions.end(conn, live.id, summary=text, now=stamp(now or utc_now()))
    return RuntimeIdentity(live.id, sid, ended=True)


def _context(
    session_id: str, project: str, directory: str, ownership_mode: str | None
) -> tuple[str, str, str]:
    check_ownership_mode(ownership_mode)
    values = (session_id.strip(), project.strip(), directory.strip())
    if not all(values):
        raise EngramError(
            "memory.runtime_context_required",
            "id, project and directory are required",
            "send the runtime session's id, project and directory",
        )
    return values


def _same_directory(a: str, b: str) -> bool:
    def norm(path: str) -> str:
        return os.path.normcase(os.path.realpath(os.path.expanduser(path)))

    return a == b or norm(a) == norm(b)


def _check_scope(session: Session, project: str, directory: str) -> None:
    if session.project == project and _same_directory(session.directory, directory):
        return
    raise EngramError(
        "memory.runtime_scope_conflict",
        f"session {session.id!r} belongs to project {session.project!r} in"
        f" {session.directory!r}, not {project!r} in {directory!r}",
        "send the project and directory the session was registered with",
        session_id=session.id,
        owner_project=session.project,
        requested_project=project,
    )


def _select(conn: Any, sid: str, project: str, directory: str) -> Session:
    root = sessions.get(conn, sid)
    if root is None:
        raise _no_live(sid)
    _check_scope(root, project, directory)
    if root.ended_at is None:
        return root
    ordinals = numbered_continuations(conn, sid)
    live = sorted(n for n, s in ordinals.items() if s.ended_at is None)
    if not live:
        raise _no_live(sid)
    continuation = ordinals[live[0]]
    _check_scope(continuation, project, directory)
    return continuation


def _no_live(sid: str) -> EngramError:
    return EngramError(
        "memory.no_live_session",
        f"session {sid!r} has no live identity here",
        "register the session first (POST /sessions)",
        session_id=sid,
    )
