"""An observation's revision history: what its title and content were before each change.

Every change of an observation's title or content (a topic-key upsert, an update) keeps the
state it replaced as a numbered version (1 = the oldest; the observation itself is the current
state). A read returns a page of at most :data:`PAGE_SIZE` versions, oldest first: the newest
ones, or with ``cursor`` the newest of those strictly older than version ``cursor``. When older
versions remain, the page says so (``truncated``) and ``cursor`` is the value to ask for next.
This is the Go tool's ``include_history`` / ``history_cursor`` contract.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engram.store import revisions
from engram.store.revisions import Revision

if TYPE_CHECKING:
    from engram.store.db import Store

PAGE_SIZE = 50


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """One page of an observation's earlier versions.

    Attributes:
        version_count: every earlier version kept (not only this page's).
        entries: this page, oldest first.
        truncated: older versions than this page's first remain.
        cursor: the ``history_cursor`` that fetches the next older page (None when none).
    """

    version_count: int
    entries: list[Revision] = field(default_factory=list)
    truncated: bool = False
    cursor: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """``version_count`` and ``history`` always; the paging fields only when truncated."""
        data: dict[str, Any] = {
            "version_count": self.version_count,
            "history": [entry.to_dict() for entry in self.entries],
        }
        if self.truncated:
            data.update(
                history_truncated=True, history_from_version=self.cursor, history_cursor=self.cursor
            )
        return data

    def render(self) -> str:
        """The history section of the text answer ('' when this page is empty)."""
        if not self.entries:
            return ""
        shown = len(self.entries)
        if self.truncated:
            head = f"History ({shown} of {self.version_count} previous versions — older versions omitted):"
        else:
            head = f"History ({shown} previous version{'' if shown == 1 else 's'}):"
        parts = [head]
        for entry in self.entries:
            parts.append(
                f"Version {entry.version} · {entry.created_at} · [{entry.type}] {entry.title}\n"
                f"{entry.content}"
            )
        return "\n\n".join(parts)


def history_page(store: Store, observation_id: int, *, cursor: int | None = None) -> HistoryPage:
    """A page of ``observation_id``'s earlier versions (see the module docstring).

    ``cursor`` 0 or None starts from the newest version; a cursor at or below the oldest
    version gives an empty page (the count stays true).
    """
    before = cursor if cursor else None
    with store.read() as conn:
        total = revisions.count(conn, observation_id)
        entries = revisions.newest_before(conn, observation_id, before=before, limit=PAGE_SIZE)
        oldest = revisions.oldest_version(conn, observation_id)
    first = entries[0].version if entries else None
    truncated = first is not None and oldest is not None and oldest < first
    return HistoryPage(total, entries, truncated, first if truncated else None)
