"""Context to re-inject after a host compacts its conversation, for one persisted session.

The session's own project is used (the caller cannot pick another): the session's summary and
its newest observations, then the project's usual context (compact, bounded).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from engram.errors import EngramError
from engram.memory.context import build_context, fit_bytes
from engram.memory.fence import one_line, quoted
from engram.store import observations, sessions
from engram.store.db import Store

SESSION_OBSERVATIONS = 20
MAX_BYTES = 16384


@dataclass(frozen=True, slots=True)
class CompactionContext:
    """The rendered text for one session."""

    session_id: str
    project: str
    context: str
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def compaction_context(store: Store, session_id: str | None) -> CompactionContext:
    """Render the after-compaction context of ``session_id``.

    Raises:
        EngramError: ``memory.session_id_required``, ``memory.unknown_session``.
    """
    if session_id is None or not session_id.strip():
        raise EngramError(
            "memory.session_id_required",
            "session_id is required",
            "pass the id of the session that was compacted",
        )
    with store.read() as conn:
        session = sessions.get(conn, session_id)
        if session is None:
            raise EngramError(
                "memory.unknown_session",
                f"session {session_id!r} does not exist",
                "register the session first (POST /sessions)",
                session_id=session_id,
            )
        ids = sessions.observation_ids(conn, session_id, limit=SESSION_OBSERVATIONS)
        found = observations.get_many(conn, ids)
    # Stored text goes in front of the agent: labels flattened onto their line, the summary
    # quoted, so no stored value can start a line of its own.
    head = f"## Session {one_line(session.id)} — project: {one_line(session.project) or '(none)'}"
    lines = [head, ""]
    if session.summary:
        lines += ["### Session Summary", quoted(session.summary.strip()), ""]
    if ids:
        lines.append("### This Session's Observations")
        lines += [
            f"- [{one_line(o.type)}] **{one_line(o.title)}** (#{o.id})"
            for i in ids
            if (o := found.get(i))
        ]
        lines.append("")
    project = build_context(store, project=session.project or None, compact=True, fenced=True)
    text, truncated = fit_bytes("\n".join(lines) + "\n" + project.text, MAX_BYTES)
    return CompactionContext(session.id, session.project, text, truncated)
