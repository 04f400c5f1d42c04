"""Saving an observation: redaction, size limit, exact-duplicate window and topic upsert.

:func:`save_observation` is the one save every surface calls (``engram save``, ``mem_save``,
passive capture, session summaries). In order:

1. title and content are required (``memory.empty_title`` / ``memory.empty_content``);
2. ``<private>...</private>`` becomes ``[REDACTED]`` in title and content, then the UTF-8 byte
   limit is applied (the result says ``truncated``, ``original_bytes``, ``limit_bytes``);
3. an exact duplicate (same normalized content hash, project, scope, type and title) last seen
   within ``DUPLICATE_WINDOW`` is not stored again: its ``duplicate_count`` goes up;
4. with a ``topic_key``, the latest live observation with the same project + scope + topic key
   is overwritten and its ``revision_count`` goes up;
5. otherwise a new observation is inserted.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from engram.errors import EngramError
from engram.memory import checks
from engram.memory.clock import stamp, utc_now
from engram.memory.redaction import clean, content_limit
from engram.memory.review import review_after_for, state_of
from engram.store import observations, sessions
from engram.store.db import Store
from engram.store.records import Observation

DUPLICATE_WINDOW = timedelta(minutes=15)
SaveAction = Literal["created", "deduplicated", "revised"]


@dataclass(frozen=True, slots=True)
class SaveResult:
    """What a save did.

    Attributes:
        observation: the row as stored after the save.
        action: ``created``, ``deduplicated`` (an existing row counted once more) or
            ``revised`` (a topic's row overwritten).
        state: ``active`` or ``needs_review``.
        truncated / original_bytes / limit_bytes: the content byte limit's verdict
            (bytes measured after redaction).
        redacted: whether a ``<private>`` span was removed.
        warnings: human-readable notes (truncation...).
    """

    observation: Observation
    action: SaveAction
    state: str
    truncated: bool
    original_bytes: int
    limit_bytes: int
    redacted: bool
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``id`` at top level for convenience)."""
        data = asdict(self)
        data["id"] = self.observation.id
        data["warnings"] = list(self.warnings)
        return data


def normalized_hash(content: str) -> str:
    """The dedup hash: SHA-256 of the content with whitespace collapsed and case folded."""
    return hashlib.sha256(" ".join(content.split()).casefold().encode("utf-8")).hexdigest()


def default_session_id(project: str) -> str:
    """The session that holds saves made outside any agent session (``engram save``)."""
    return f"manual-save-{project}"


def save_observation(
    store: Store,
    *,
    title: str | None,
    content: str | None,
    project: str,
    type: str | None = None,
    scope: str | None = None,
    topic_key: str | None = None,
    session_id: str | None = None,
    tool_name: str | None = None,
    limit_bytes: int | None = None,
    now: datetime | None = None,
) -> SaveResult:
    """Save one observation for an already-resolved ``project`` (see module docstring).

    Raises:
        EngramError: ``memory.empty_title``, ``memory.empty_content``, ``memory.bad_scope``,
            ``memory.unknown_session``, ``memory.session_project_mismatch``.
    """
    now = now or utc_now()
    limit = limit_bytes if limit_bytes and limit_bytes > 0 else content_limit()
    raw_title = checks.require_title(title)
    raw_content = checks.require_content(content)
    kind = checks.check_type(type)
    where = checks.check_scope(scope)
    clean_title = clean(raw_title, limit)
    body = clean(raw_content, limit)
    topic = (topic_key or "").strip() or None
    digest = normalized_hash(body.text)
    with store.write() as conn:
        session = ensure_session(conn, session_id, project, now)
        observation, action = _store(
            conn,
            clean_title.text,
            body.text,
            digest,
            kind,
            where,
            topic,
            project,
            session,
            tool_name,
            now,
        )
    warnings = []
    if body.truncated:
        warnings.append(
            f"content was truncated to {limit} bytes (it was {body.original_bytes} bytes)"
        )
    if clean_title.truncated:
        warnings.append(f"title was truncated to {limit} bytes")
    return SaveResult(
        observation=observation,
        action=action,
        state=state_of(observation, now),
        truncated=body.truncated,
        original_bytes=body.original_bytes,
        limit_bytes=limit,
        redacted=body.redacted or clean_title.redacted,
        warnings=tuple(warnings),
    )


def _store(
    conn: sqlite3.Connection,
    title: str,
    content: str,
    digest: str,
    kind: str,
    scope: str,
    topic: str | None,
    project: str,
    session_id: str,
    tool_name: str | None,
    now: datetime,
) -> tuple[Observation, SaveAction]:
    moment = stamp(now)
    duplicate = observations.find_duplicate(
        conn,
        normalized_hash=digest,
        project=project,
        scope=scope,
        type=kind,
        title=title,
        since=stamp(now - DUPLICATE_WINDOW),
    )
    if duplicate is not None:
        observations.record_duplicate(conn, duplicate.id, moment)
        return _reload(conn, duplicate.id), "deduplicated"
    review_after = review_after_for(kind, now)
    if topic is not None:
        latest = observations.find_topic(conn, project=project, scope=scope, topic_key=topic)
        if latest is not None:
            changes = {
                "title": title,
                "content": content,
                "type": kind,
                "normalized_hash": digest,
                "tool_name": tool_name,
            }
            observations.revise(
                conn,
                latest.id,
                changes,
                moment,
                session_id=session_id,
                review_after=review_after,
            )
            return _reload(conn, latest.id), "revised"
    new = observations.NewObservation(
        session_id=session_id,
        type=kind,
        title=title,
        content=content,
        project=project,
        scope=scope,
        normalized_hash=digest,
        tool_name=tool_name,
        topic_key=topic,
        review_after=review_after,
    )
    return _reload(conn, observations.insert(conn, new, moment)), "created"


def _reload(conn: sqlite3.Connection, obs_id: int) -> Observation:
    observation = observations.get(conn, obs_id)
    assert observation is not None
    return observation


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
        sessions.adopt_project(conn, sid, project)
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
