"""Plain, frozen records for rows the store returns.

They are dataclasses (not pydantic models) so the hook path can import the store without
paying for pydantic. Every record has ``to_dict()`` for JSON surfaces.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, fields
from typing import Any, TypeVar

R = TypeVar("R")


def new_sync_id(prefix: str) -> str:
    """A random, globally unique id for a row (``obs-1f2e...``) that survives export/import."""
    return f"{prefix}-{os.urandom(8).hex()}"


class _Record:
    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict.

        Every field is a plain value (text, number, bool, None), so a shallow copy is the
        same dict ``dataclasses.asdict`` builds — ten times cheaper (it deep-copies each
        value), which shows on every search answered over HTTP or MCP.
        """
        names = _FIELDS.get(type(self))
        if names is None:
            names = _FIELDS[type(self)] = tuple(f.name for f in fields(self))  # type: ignore[arg-type]
        return {name: getattr(self, name) for name in names}


@dataclass(frozen=True, slots=True)
class Observation(_Record):
    """One row of ``observations``."""

    id: int
    sync_id: str
    session_id: str | None
    type: str
    title: str
    content: str
    tool_name: str | None
    project: str
    scope: str
    topic_key: str | None
    normalized_hash: str
    revision_count: int
    duplicate_count: int
    last_seen_at: str | None
    pinned: bool
    review_after: str | None
    expires_at: str | None
    created_at: str
    updated_at: str
    deleted_at: str | None


@dataclass(frozen=True, slots=True)
class Session(_Record):
    """One row of ``sessions``."""

    id: str
    project: str
    ownership_mode: str
    directory: str
    started_at: str
    ended_at: str | None
    summary: str | None


@dataclass(frozen=True, slots=True)
class Prompt(_Record):
    """One row of ``user_prompts``."""

    id: int
    sync_id: str
    session_id: str | None
    content: str
    project: str
    created_at: str


@dataclass(frozen=True, slots=True)
class Relation(_Record):
    """One row of ``memory_relations`` (source/target are observation sync_ids)."""

    id: int
    sync_id: str
    source_id: str
    target_id: str
    relation: str
    judgment_status: str
    reason: str | None
    evidence: str | None
    confidence: float | None
    marked_by_kind: str | None
    marked_by_actor: str | None
    marked_by_model: str | None
    session_id: str | None
    superseded_at: str | None
    superseded_by_id: int | None
    created_at: str
    updated_at: str


_FIELDS: dict[type, tuple[str, ...]] = {}


def from_row(cls: type[R], row: sqlite3.Row) -> R:
    """Build a record from a row holding (at least) the record's columns."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    values = {name: row[name] for name in names}
    if "pinned" in values:
        values["pinned"] = bool(values["pinned"])
    return cls(**values)


def from_rows(cls: type[R], cursor: sqlite3.Cursor) -> list[R]:
    """Build records from every row of ``cursor`` (columns matched by name once, then read by
    position — much cheaper than name lookups per row)."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    columns = [d[0] for d in cursor.description]
    positions = [columns.index(name) for name in names]
    pinned = names.index("pinned") if "pinned" in names else -1
    records = []
    for row in cursor:
        values = [row[i] for i in positions]
        if pinned >= 0:
            values[pinned] = bool(values[pinned])
        records.append(cls(*values))
    return records
