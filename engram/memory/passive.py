"""Passive capture: turning a ``## Key Learnings:`` section into one observation per item.

Only items under a ``Key Learnings`` heading (any level, colon optional) are saved; other text
is ignored. Items are numbered (``1.``, ``2)``) or bulleted (``-``, ``*``, ``•``); indented
lines continue the item above. An item already stored as a live learning of the project is
skipped, whenever it was saved.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from engram.memory.save import draft_observation, normalized_hash, write_draft
from engram.store import observations
from engram.store.db import Store

LEARNING_TYPE = "learning"
TITLE_CHARS = 80

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*key\s+learnings\s*:?\s*$", re.IGNORECASE)
_ANY_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_ITEM = re.compile(r"^\s{0,3}(?:\d+[.)]|[-*•])\s+(.*\S)\s*$")


def extract_learnings(text: str) -> list[str]:
    """The items of every ``Key Learnings`` section in ``text``, in order."""
    items: list[str] = []
    inside = False
    for line in text.splitlines():
        if _HEADING.match(line):
            inside = True
            continue
        if inside and _ANY_HEADING.match(line):
            inside = False
        if not inside:
            continue
        item = _ITEM.match(line)
        if item:
            items.append(item.group(1))
        elif items and line.strip() and line[:1].isspace():
            items[-1] += " " + line.strip()
    return [" ".join(i.split()) for i in items if i.strip()]


def _title_for(item: str) -> str:
    if len(item) <= TITLE_CHARS:
        return item
    cut = item[:TITLE_CHARS].rsplit(" ", 1)[0]
    return (cut or item[:TITLE_CHARS]) + "…"


@dataclass(frozen=True, slots=True)
class CaptureResult:
    """What passive capture found and saved."""

    found: int
    saved_ids: tuple[int, ...]
    skipped: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ours (``found``, ``saved_ids``, ``skipped``) and the Go tool's
        counters (``extracted``, ``saved``, ``duplicates``), which its plugins read."""
        data = asdict(self)
        data["saved_ids"] = list(self.saved_ids)
        data.update(extracted=self.found, saved=len(self.saved_ids), duplicates=self.skipped)
        return data


def capture_passive(
    store: Store,
    text: str,
    *,
    project: str,
    session_id: str | None = None,
    now: datetime | None = None,
) -> CaptureResult:
    """Save each new ``Key Learnings`` item of ``text`` as a ``learning`` observation.

    Raises:
        EngramError: ``memory.unknown_session``, ``memory.session_project_mismatch``.
    """
    items = extract_learnings(text)
    saved: list[int] = []
    skipped = 0
    with store.write() as conn:
        for item in items:
            draft = draft_observation(title=_title_for(item), content=item, type=LEARNING_TYPE)
            digest = normalized_hash(draft.body.text)
            if observations.exists_with_hash(
                conn, normalized_hash=digest, project=project, type=LEARNING_TYPE
            ):
                skipped += 1
                continue
            result = write_draft(conn, draft, project=project, session_id=session_id, now=now)
            saved.append(result.observation.id)
    return CaptureResult(len(items), tuple(saved), skipped)
