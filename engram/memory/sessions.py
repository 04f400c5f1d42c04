"""Agent sessions: start, end (with an optional summary) and the end-of-session summary save.

A session belongs to one project. An ended session is never reopened: starting it again
fails with ``memory.session_already_ended`` (choose a new id); ending it again changes nothing.
"""

from __future__ import annotations

from engram.errors import EngramError
from engram.identifiers import id_problem
from engram.memory.clock import stamp, utc_now
from engram.memory.redaction import clean, content_limit, redact
from engram.store import sessions
from engram.store.records import Session, record

TYPE_CHECKING = False  # typing and dataclasses cost the hook path more than its work
if TYPE_CHECKING:
    import sqlite3
    from datetime import datetime
    from typing import Any

    from engram.memory.save import SaveResult  # relations, topics, search: not for hooks
    from engram.store.db import Store

SUMMARY_TYPE = "session_summary"


@record
class SessionResult:
    """A session after start or end; ``changed`` is False for an idempotent repeat."""

    session: Session
    changed: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the session's fields plus ``changed``."""
        return {**self.session.to_dict(), "changed": self.changed}


def _require_id(session_id: str | None) -> str:
    if session_id is None or not session_id.strip():
        raise EngramError(
            "memory.session_id_required",
            "a session id is required",
            "pass the host's session id (any non-empty string)",
        )
    problem = id_problem(session_id.strip())
    if problem is not None:
        raise EngramError(
            "memory.invalid_session_id",
            f"session id {session_id.strip()[:40]!r} {problem}",
            "pass the host's session id: at most 256 characters, no control characters",
        )
    if redact(session_id) != session_id:  # an id is stored as is: it may not hide a secret
        raise EngramError(
            "memory.private_session_id",
            "a session id cannot contain a <private> span",
            "pass the host's session id without <private> tags",
        )
    return session_id.strip()


def _ended(session_id: str) -> EngramError:
    return EngramError(
        "memory.session_already_ended",
        f"session {session_id!r} has already ended and cannot be reopened",
        "start a new session with a new id",
        session_id=session_id,
    )


def start_session(
    store: Store,
    session_id: str | None,
    *,
    project: str,
    directory: str = "",
    now: datetime | None = None,
) -> SessionResult:
    """Register a live session for ``project`` (idempotent for a live session of it).

    Raises:
        EngramError: ``memory.session_id_required``, ``memory.session_already_ended``,
            ``memory.session_project_mismatch``.
    """
    sid = _require_id(session_id)
    with store.write() as conn:
        existing = sessions.get(conn, sid)
        if existing is None:
            folder = redact(directory)  # a folder name can carry a <private> span too
            sessions.create(conn, sid, project=project, directory=folder, now=stamp(now))
        elif existing.ended_at is not None:
            raise _ended(sid)
        elif existing.project and existing.project != project:
            raise EngramError(
                "memory.session_project_mismatch",
                f"session {sid!r} belongs to project {existing.project!r}, not {project!r}",
                "use a new session id for this project",
                session_id=sid,
                owner_project=existing.project,
                requested_project=project,
            )
        elif not existing.project:
            sessions.adopt_project(conn, sid, project)
        session = sessions.get(conn, sid)
    assert session is not None
    return SessionResult(session, existing is None or not existing.project)


def end_session(
    store: Store, session_id: str | None, *, summary: str | None = None, now: datetime | None = None
) -> SessionResult:
    """Mark a session ended (with an optional, redacted summary). Ending twice is a no-op.

    Raises:
        EngramError: ``memory.session_id_required``, ``memory.unknown_session``.
    """
    sid = _require_id(session_id)
    text = clean(summary, content_limit()).text if summary and summary.strip() else None
    with store.write() as conn:
        existing = sessions.get(conn, sid)
        if existing is None:
            raise EngramError(
                "memory.unknown_session",
                f"session {sid!r} does not exist",
                "check the session id (mem_session_start registers one)",
                session_id=sid,
            )
        changed = sessions.end(conn, sid, summary=text, now=stamp(now or utc_now()))
        session = sessions.get(conn, sid)
    assert session is not None
    return SessionResult(session, changed)


def save_session_summary(
    store: Store,
    content: str | None,
    *,
    project: str,
    session_id: str | None = None,
    now: datetime | None = None,
) -> SaveResult:
    """Save an end-of-session summary (Goal / Instructions / Discoveries / Accomplished /
    Next Steps / Relevant Files) as a ``session_summary`` observation, and record it on the
    session — in one transaction. The session is not ended.

    Raises:
        EngramError: ``memory.empty_content``, ``memory.unknown_session``,
            ``memory.session_project_mismatch``.
    """
    from engram.memory.save import draft_observation, write_draft

    draft = draft_observation(
        title=f"Session summary: {project}", content=content, type=SUMMARY_TYPE
    )
    with store.write() as conn:
        result = write_draft(conn, draft, project=project, session_id=session_id, now=now)
        if result.observation.session_id:
            sessions.set_summary(conn, result.observation.session_id, result.observation.content)
    return result


def recent_sessions(store: Store, *, project: str | None, limit: int = 5) -> list[Session]:
    """Newest sessions first (every project when ``project`` is None)."""
    with store.read() as conn:
        return sessions.recent(conn, project=project, limit=max(limit, 1))


def get_session(store: Store, session_id: str) -> Session | None:
    """One session by id, or None when the store has never seen it."""
    with store.read() as conn:
        return sessions.get(conn, session_id)


def session_project(store: Store, session_id: str | None) -> str | None:
    """The project a known session belongs to (None for no id or an unknown session)."""
    if not session_id:
        return None
    session = get_session(store, session_id)
    return session.project if session is not None else None


def default_session_id(project: str) -> str:
    """The session that holds saves made outside any agent session (``engram save``)."""
    return f"manual-save-{project}"


def ensure_session(
    conn: sqlite3.Connection, session_id: str | None, project: str, now: datetime
) -> str:
    """The session a write belongs to, creating the project's manual-save session if needed.

    A named session must exist; an unowned one adopts ``project``; one owned by another
    project is refused. Writing into an ended session never reopens it.
    """
    if session_id is None or not session_id.strip():
        sid = default_session_id(project)
        if sessions.get(conn, sid) is None:
            sessions.create(conn, sid, project=project, directory="", now=stamp(now))
        return sid
    sid = session_id.strip()
    session = sessions.get(conn, sid)
    if session is None:
        raise EngramError(
            "memory.unknown_session",
            f"session {sid!r} does not exist",
            "start it first (mem_session_start) or omit session_id",
            session_id=sid,
        )
    if not session.project:
        _adopt(conn, sid, project)
    elif session.project != project:
        raise EngramError(
            "memory.session_project_mismatch",
            f"session {sid!r} belongs to project {session.project!r}, not {project!r}",
            "save without project (the session decides) or use a session of that project",
            session_id=sid,
            owner_project=session.project,
            requested_project=project,
        )
    return sid


def _adopt(conn: sqlite3.Connection, session_id: str, project: str) -> None:
    """An unowned (legacy) session adopts the write's project — unless it already parents a
    record of another project, which adopting would split from it (seed 003)."""
    from engram.store.ownership import dependent_projects, foreign_dependents

    if foreign_dependents(conn, session_id, project):
        owners = dependent_projects(conn, session_id)
        owner = next((o for o in owners if o != project), project)
        raise EngramError(
            "project.ownership_ambiguous",
            f"session {session_id!r} has no project but holds records of {', '.join(owners)}; "
            f"writing {project!r} into it would split them. Nothing was written",
            f"engram projects rescue-ownership --project {owner} --session {session_id}",
            session_id=session_id,
            project=project,
            owner_projects=owners,
        )
    sessions.adopt_project(conn, session_id, project)
