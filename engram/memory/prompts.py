"""What the user asked: prompts saved with the same redaction and byte limit as observations.

On the hook path (a prompt hook saves every prompt): it imports neither the save nor the search
stack, nor ``dataclasses`` or ``typing``.
"""

from __future__ import annotations

from engram.memory import checks
from engram.memory.clock import stamp, utc_now
from engram.memory.redaction import clean, content_limit
from engram.memory.sessions import ensure_session
from engram.store import prompts
from engram.store.records import Prompt, record

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    from engram.store.db import Store

DEFAULT_LIMIT = 10
MAX_LIMIT = 50


@record
class PromptResult:
    """A saved prompt and the byte limit's verdict."""

    prompt: Prompt
    truncated: bool
    original_bytes: int
    limit_bytes: int
    redacted: bool
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``id`` at top level)."""
        return {
            "prompt": self.prompt.to_dict(),
            "truncated": self.truncated,
            "original_bytes": self.original_bytes,
            "limit_bytes": self.limit_bytes,
            "redacted": self.redacted,
            "warnings": list(self.warnings),
            "id": self.prompt.id,
        }


def save_prompt(
    store: Store,
    content: str | None,
    *,
    project: str,
    session_id: str | None = None,
    limit_bytes: int | None = None,
    now: datetime | None = None,
) -> PromptResult:
    """Record a user prompt (redacted, then cut to the byte limit).

    Raises:
        EngramError: ``memory.empty_content``, ``memory.unknown_session``,
            ``memory.session_project_mismatch``.
    """
    limit = limit_bytes if limit_bytes and limit_bytes > 0 else content_limit()
    text = clean(checks.require_content(content), limit)
    with store.write() as conn:
        sid = ensure_session(conn, session_id, project, now or utc_now())
        prompt_id = prompts.insert(
            conn, session_id=sid, content=text.text, project=project, now=stamp(now)
        )
        prompt = prompts.get(conn, prompt_id)
    assert prompt is not None
    warnings = (
        (f"prompt was truncated to {limit} bytes (it was {text.original_bytes} bytes)",)
        if text.truncated
        else ()
    )
    return PromptResult(prompt, text.truncated, text.original_bytes, limit, text.redacted, warnings)


def recent_prompts(store: Store, *, project: str | None, limit: int | None = None) -> list[Prompt]:
    """Newest prompts first (every project when ``project`` is None)."""
    from engram.memory.search import clamp_limit

    with store.read() as conn:
        return prompts.recent(
            conn, project=project, limit=clamp_limit(limit, DEFAULT_LIMIT, MAX_LIMIT)
        )


def search_prompts(
    store: Store, text: str, *, project: str | None, limit: int | None = None, mode: str = "all"
) -> list[Prompt]:
    """Prompts matching ``text``, best first.

    Raises:
        EngramError: ``memory.empty_query``, ``memory.bad_mode``.
    """
    from engram.memory.search import build_query, clamp_limit

    query = build_query(text, mode)
    # No snapshot needed (as for observations): a prompt deleted between the statements is
    # simply left out, and mem_search runs this on every call.
    with store.locked() as conn:
        return prompts.search(
            conn, query, project=project, limit=clamp_limit(limit, DEFAULT_LIMIT, MAX_LIMIT)
        )
