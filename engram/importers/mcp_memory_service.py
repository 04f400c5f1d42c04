"""mcp-memory-service's SQLite store (its ``sqlite_vec`` backend) as Engram records.

Read from its schema: ``memories`` (``content_hash`` unique, ``content``, ``tags`` — comma
separated, or a JSON list in some releases — ``memory_type``, ``metadata`` JSON, ``created_at``
/ ``updated_at`` epoch seconds with ISO copies, ``deleted_at`` for soft deletes). The vectors
(``memory_embeddings``, a sqlite-vec table) are not read: Engram does not need the extension.

Mapping: one observation per memory, its sync id derived from ``content_hash`` (so a memory
stored twice there is one here), its type the nearest Engram type (the original kept in the
text with its tags), soft-deleted memories arrive soft-deleted. The project comes from the
memory's metadata (``project``) or a ``project:<name>`` tag, else from ``--project`` / the
current project. Each project's memories hang off one session, ``mcp-memory-service-<project>``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engram.importers.records import (
    Options,
    Record,
    Where,
    open_sqlite,
    stable_id,
    timestamp,
    title_from,
    with_provenance,
)
from engram.memory.checks import TYPES

TOOL = "mcp-memory-service"
_ALIASES = {"note": "manual", "fix": "bugfix", "reference": "discovery", "insight": "learning"}
_NOW = "1970-01-01 00:00:00"
_ORDER = " FROM memories ORDER BY created_at, id"


def open_source(path: Path, options: Options) -> MemoryServiceStore:
    """The mcp-memory-service database at ``path`` (refused in one line if it is not one)."""
    conn = open_sqlite(path, TOOL, {"memories": {"content_hash", "content", "tags", "created_at"}})
    return MemoryServiceStore(conn, path, options.limit, options.project, options.default_project)


def _tags(raw: Any) -> list[str]:
    if not isinstance(raw, str) or not raw.strip():
        return []
    if raw.lstrip().startswith("["):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):  # RecursionError: nested too deeply to be tags
            value = None
        if isinstance(value, list):
            return [v.strip() for v in value if isinstance(v, str) and v.strip()]
    return [tag.strip() for tag in raw.split(",") if tag.strip()]


def _metadata(raw: Any) -> dict[str, Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


class MemoryServiceStore:
    """An opened mcp-memory-service database."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        limit: int,
        override: str | None,
        default_project: str,
    ) -> None:
        self._conn, self._path, self._limit = conn, path, limit
        self._override, self._default = override, default_project
        # One pass for the projects (a session each, parents first), one for the memories.
        self._first_seen: dict[str, object] = {}
        memories = 0
        for row in conn.execute("SELECT *" + _ORDER):
            memories += 1
            self._first_seen.setdefault(self._project(row, _tags(row["tags"])), row["created_at"])
        self.total = memories + len(self._first_seen)

    def close(self) -> None:
        """Close the database."""
        self._conn.close()

    def _project(self, row: sqlite3.Row, tags: list[str]) -> str:
        if self._override is not None:
            return self._override
        keys = row.keys()  # a Row's `in` looks at its values
        named = _metadata(row["metadata"] if "metadata" in keys else None).get("project")
        if isinstance(named, str) and named.strip():
            return named.strip()
        tagged = [t.split(":", 1)[1] for t in tags if t.startswith("project:") and t[8:].strip()]
        return tagged[0].strip() if tagged else self._default

    def records(self) -> Iterator[Record]:
        """A session per project (first), then every memory."""
        sessions = {project: f"{TOOL}-{project}" for project in self._first_seen}
        for project, first in self._first_seen.items():
            yield (
                "sessions",
                {
                    "id": sessions[project],
                    "project": project,
                    "directory": "",
                    "started_at": timestamp(first, _NOW),
                },
            )
        for row in self._conn.execute("SELECT *" + _ORDER):
            yield self._observation(row, sessions)

    def _observation(self, row: sqlite3.Row, sessions: dict[str, str]) -> Record:
        keys = row.keys()
        tags = _tags(row["tags"])
        project = self._project(row, tags)
        kind = str(row["memory_type"] or "note") if "memory_type" in keys else "note"
        lines = [str(row["content"] or "").strip(), f"mcp-memory-service type: {kind}"]
        if tags:
            lines.append(f"Tags: {', '.join(tags)}")
        created = timestamp(row["created_at"], None) or timestamp(
            row["created_at_iso"] if "created_at_iso" in keys else None, _NOW
        )
        updated = timestamp(row["updated_at"] if "updated_at" in keys else None, created)
        deleted = timestamp(row["deleted_at"]) if "deleted_at" in keys else None
        where = Where(TOOL, "memory", str(row["content_hash"])[:16], str(self._path))
        return "observations", {
            "sync_id": stable_id("obs", TOOL, row["content_hash"]),
            "session_id": sessions[project],
            "type": kind if kind in TYPES else _ALIASES.get(kind, "manual"),
            "title": title_from(row["content"]),
            "content": with_provenance("\n\n".join(lines), where, self._limit),
            "project": project,
            "created_at": created,
            "updated_at": updated,
            "deleted_at": deleted,
        }
