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
5. otherwise a new observation is inserted;
6. the code the (redacted) title and content cite in the repository of ``workspace`` is
   recorded (:mod:`engram.memory.citations`), replacing what a revised row cited before.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Literal

from engram.memory import checks
from engram.memory.clock import stamp, utc_now
from engram.memory.redaction import CleanText, clean, content_limit, redact
from engram.memory.relations import Candidate, surface_candidates
from engram.memory.review import review_after_for, state_of
from engram.memory.sessions import default_session_id as default_session_id
from engram.memory.sessions import ensure_session
from engram.store import observations
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
        candidates: similar memories recorded as pending relations to judge
            (:mod:`engram.memory.relations`).
    """

    observation: Observation
    action: SaveAction
    state: str
    truncated: bool
    original_bytes: int
    limit_bytes: int
    redacted: bool
    warnings: tuple[str, ...] = ()
    candidates: tuple[Candidate, ...] = ()

    @property
    def judgment_required(self) -> bool:
        """Whether the save surfaced possible conflicts the agent should judge."""
        return bool(self.candidates)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``id`` and ``judgment_required`` at top level). Built field by
        field: ``dataclasses.asdict`` deep-copies the record first, a quarter of a
        millisecond of every HTTP save's answer."""
        return {
            "observation": self.observation.to_dict(),
            "action": self.action,
            "state": self.state,
            "truncated": self.truncated,
            "original_bytes": self.original_bytes,
            "limit_bytes": self.limit_bytes,
            "redacted": self.redacted,
            "warnings": list(self.warnings),
            "candidates": [c.to_dict() for c in self.candidates],
            "id": self.observation.id,
            "judgment_required": self.judgment_required,
        }


def normalized_hash(content: str) -> str:
    """The dedup hash: SHA-256 of the content with whitespace collapsed and case folded."""
    return hashlib.sha256(" ".join(content.split()).casefold().encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Draft:
    """A checked, redacted and size-limited observation, ready to write."""

    title: CleanText
    body: CleanText
    type: str
    scope: str
    topic_key: str | None
    tool_name: str | None
    limit_bytes: int


def draft_observation(
    *,
    title: str | None,
    content: str | None,
    type: str | None = None,
    scope: str | None = None,
    topic_key: str | None = None,
    tool_name: str | None = None,
    limit_bytes: int | None = None,
) -> Draft:
    """Check and clean a save's input without touching the store.

    Raises:
        EngramError: ``memory.empty_title``, ``memory.empty_content``, ``memory.bad_scope``.
    """
    limit = limit_bytes if limit_bytes and limit_bytes > 0 else content_limit()
    raw_title = checks.require_title(title)
    raw_content = checks.require_content(content)
    return Draft(
        title=clean(raw_title, limit),
        body=clean(raw_content, limit),
        type=checks.check_type(type),
        scope=checks.check_scope(scope),
        topic_key=redact(topic_key or "").strip() or None,
        tool_name=(tool_name or "").strip() or None,
        limit_bytes=limit,
    )


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
    surface_conflicts: bool = True,
    workspace: str | None = None,
) -> SaveResult:
    """Save one observation for an already-resolved ``project`` (see module docstring).

    With ``surface_conflicts`` (default), similar memories of the project come back as
    ``candidates`` to judge. ``workspace`` (default: the working directory) is where the
    repository whose code the memory cites is found.

    Raises:
        EngramError: ``memory.empty_title``, ``memory.empty_content``, ``memory.bad_scope``,
            ``memory.unknown_session``, ``memory.session_project_mismatch``.
    """
    draft = draft_observation(
        title=title,
        content=content,
        type=type,
        scope=scope,
        topic_key=topic_key,
        tool_name=tool_name,
        limit_bytes=limit_bytes,
    )
    return store.transact(
        draft_writer(
            draft,
            project=project,
            session_id=session_id,
            now=now,
            surface_conflicts=surface_conflicts,
            workspace=workspace,
        )
    )


def draft_writer(
    draft: Draft,
    *,
    project: str,
    session_id: str | None,
    now: datetime | None = None,
    surface_conflicts: bool = True,
    workspace: str | None = None,
) -> Callable[[sqlite3.Connection], SaveResult]:
    """The write of a checked :class:`Draft` as a save does it (conflict candidates on by
    default), for :meth:`Store.transact <engram.store.db.Store.transact>` or
    :meth:`Store.write_together <engram.store.db.Store.write_together>` (``engram serve``'s
    writer process)."""
    return partial(
        write_draft,
        draft=draft,
        project=project,
        session_id=session_id,
        now=now,
        surface_conflicts=surface_conflicts,
        workspace=workspace,
    )


def write_draft(
    conn: sqlite3.Connection,
    draft: Draft,
    *,
    project: str,
    session_id: str | None,
    now: datetime | None = None,
    surface_conflicts: bool = False,
    workspace: str | None = None,
) -> SaveResult:
    """Write a :class:`Draft` inside the caller's write transaction."""
    now = now or utc_now()
    session = ensure_session(conn, session_id, project, now)
    observation, action = _store(conn, draft, project, session, now)
    if action != "deduplicated":
        from engram.memory.citations.recording import record_citations

        record_citations(conn, observation, workspace, now, fresh=action == "created")
    candidates: tuple[Candidate, ...] = ()
    if surface_conflicts and action != "deduplicated":
        candidates = surface_candidates(conn, observation, now, fresh=action == "created")
    warnings = []
    if draft.body.truncated:
        warnings.append(
            f"content was truncated to {draft.limit_bytes} bytes "
            f"(it was {draft.body.original_bytes} bytes)"
        )
    if draft.title.truncated:
        warnings.append(f"title was truncated to {draft.limit_bytes} bytes")
    return SaveResult(
        observation=observation,
        action=action,
        state=state_of(observation, now),
        truncated=draft.body.truncated,
        original_bytes=draft.body.original_bytes,
        limit_bytes=draft.limit_bytes,
        redacted=draft.body.redacted or draft.title.redacted,
        warnings=tuple(warnings),
        candidates=candidates,
    )


def _store(
    conn: sqlite3.Connection, draft: Draft, project: str, session_id: str, now: datetime
) -> tuple[Observation, SaveAction]:
    moment = stamp(now)
    title, content = draft.title.text, draft.body.text
    digest = normalized_hash(content)
    duplicate = observations.find_duplicate(
        conn,
        normalized_hash=digest,
        project=project,
        scope=draft.scope,
        type=draft.type,
        title=title,
        since=stamp(now - DUPLICATE_WINDOW),
    )
    if duplicate is not None:
        observations.record_duplicate(conn, duplicate.id, moment)
        return _reload(conn, duplicate.id), "deduplicated"
    review_after = review_after_for(draft.type, now)
    if draft.topic_key is not None:
        latest = observations.find_topic(
            conn, project=project, scope=draft.scope, topic_key=draft.topic_key
        )
        if latest is not None:
            changes = {
                "title": title,
                "content": content,
                "type": draft.type,
                "normalized_hash": digest,
                "tool_name": draft.tool_name,
            }
            observations.revise(
                conn, latest.id, changes, moment, session_id=session_id, review_after=review_after
            )
            return _reload(conn, latest.id), "revised"
    new = observations.NewObservation(
        session_id=session_id,
        type=draft.type,
        title=title,
        content=content,
        project=project,
        scope=draft.scope,
        normalized_hash=digest,
        tool_name=draft.tool_name,
        topic_key=draft.topic_key,
        review_after=review_after,
    )
    return observations.insert_returning(conn, new, moment), "created"


def _reload(conn: sqlite3.Connection, obs_id: int) -> Observation:
    observation = observations.get(conn, obs_id)
    assert observation is not None
    return observation
