"""claude-mem's SQLite store (``~/.claude-mem/claude-mem.db``) as Engram records.

Read from its schema: ``sdk_sessions`` (a Claude Code session, ``claude_session_id`` —
``content_session_id`` in newer releases — and the observer's ``sdk_session_id`` /
``memory_session_id``), ``observations`` (type, title, subtitle, narrative, facts and concepts
as JSON arrays, files read and modified), ``session_summaries`` (request, investigated,
learned, completed, next steps, notes) and ``user_prompts``. Timestamps are ISO strings with
a millisecond epoch beside them.

Mapping: a session per Claude Code session (``claude-mem-<id>``); an observation per
observation (claude-mem's type kept in the text, mapped to the nearest Engram type) and per
session summary (``session_summary``); a prompt per user prompt. Every observation ends with
a provenance line naming the claude-mem row.
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
    clip,
    columns,
    open_sqlite,
    stable_id,
    timestamp,
    title_from,
    with_provenance,
)

TOOL = "claude-mem"
TYPES = {
    "decision": "decision",
    "bugfix": "bugfix",
    "discovery": "discovery",
    "feature": "learning",
    "refactor": "pattern",
    "change": "manual",
}
_NOW = "1970-01-01 00:00:00"


def open_source(path: Path, options: Options) -> ClaudeMemStore:
    """The claude-mem database at ``path`` (refused in one line if it is not one)."""
    conn = open_sqlite(path, TOOL, {"sdk_sessions": {"project"}, "observations": {"title"}})
    return ClaudeMemStore(conn, path, options.limit)


def _pick(row: sqlite3.Row, *names: str) -> Any:
    keys = row.keys()
    return next((row[name] for name in names if name in keys and row[name] is not None), None)


def _items(raw: Any) -> list[str]:
    if not isinstance(raw, str) or not raw.strip():
        return []
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON (or nested too deeply): keep the text
        return [raw.strip()]
    if isinstance(value, list):
        return [v if isinstance(v, str) else json.dumps(v)[:2000] for v in value]
    return [value if isinstance(value, str) else raw.strip()]


class ClaudeMemStore:
    """An opened claude-mem database."""

    def __init__(self, conn: sqlite3.Connection, path: Path, limit: int) -> None:
        self._conn, self._path, self._limit = conn, path, limit
        self._has = {t: columns(conn, t) for t in ("session_summaries", "user_prompts")}
        self.total = sum(self._count(t) for t in ("sdk_sessions", "observations")) + sum(
            self._count(t) for t, cols in self._has.items() if cols
        )

    def _count(self, table: str) -> int:
        return int(self._conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        self._conn.close()

    def records(self) -> Iterator[Record]:
        """Sessions, then observations, summaries and prompts."""
        by_memory: dict[str, tuple[str, str]] = {}  # observer session id -> (ours, project)
        by_content: dict[str, tuple[str, str]] = {}
        for row in self._conn.execute("SELECT * FROM sdk_sessions ORDER BY id"):
            content_id = str(_pick(row, "content_session_id", "claude_session_id") or row["id"])
            ours = f"claude-mem-{content_id}"
            project = str(row["project"] or "")
            memory_id = _pick(row, "memory_session_id", "sdk_session_id")
            if memory_id:
                by_memory[str(memory_id)] = (ours, project)
            by_content[content_id] = (ours, project)
            started = _pick(row, "started_at_epoch", "started_at")
            yield (
                "sessions",
                {
                    "id": ours,
                    "project": project,
                    "directory": "",
                    "started_at": timestamp(started, _NOW),
                    "ended_at": timestamp(_pick(row, "completed_at_epoch", "completed_at")),
                    "summary": None,
                },
            )
        yield from self._observations(by_memory)
        if self._has["session_summaries"]:
            yield from self._summaries(by_memory)
        if self._has["user_prompts"]:
            yield from self._prompts(by_content)

    def _session(self, row: sqlite3.Row, sessions: dict[str, tuple[str, str]]) -> tuple[Any, str]:
        key = _pick(row, "memory_session_id", "sdk_session_id")
        ours, project = sessions.get(str(key), (None, ""))
        return ours, str(_pick(row, "project") or project)

    def _observations(self, sessions: dict[str, tuple[str, str]]) -> Iterator[Record]:
        for row in self._conn.execute("SELECT * FROM observations ORDER BY id"):
            session_id, project = self._session(row, sessions)
            kind = str(_pick(row, "type") or "change")
            parts = [_pick(row, "subtitle"), _pick(row, "narrative"), _pick(row, "text")]
            lines = [str(p).strip() for p in parts if p and str(p).strip()]
            facts = _items(_pick(row, "facts"))
            if facts:
                lines.append("Facts:\n" + "\n".join(f"- {fact}" for fact in facts))
            for label, name in (
                ("Concepts", "concepts"),
                ("Files read", "files_read"),
                ("Files modified", "files_modified"),
            ):
                if values := _items(_pick(row, name)):
                    lines.append(f"{label}: {', '.join(values)}")
            lines.append(f"claude-mem type: {kind}")
            created = timestamp(_pick(row, "created_at_epoch", "created_at"), _NOW)
            where = Where(TOOL, "observation", f"#{row['id']}", str(self._path))
            yield (
                "observations",
                {
                    "sync_id": stable_id(
                        "obs", TOOL, "observation", session_id, created, row["id"]
                    ),
                    "session_id": session_id,
                    "type": TYPES.get(kind, "manual"),
                    "title": title_from(
                        _pick(row, "title"), _pick(row, "subtitle"), "\n".join(lines)
                    ),
                    "content": with_provenance("\n\n".join(lines), where, self._limit),
                    "project": project,
                    "created_at": created,
                },
            )

    def _summaries(self, sessions: dict[str, tuple[str, str]]) -> Iterator[Record]:
        labels = (
            ("Request", "request"),
            ("Investigated", "investigated"),
            ("Learned", "learned"),
            ("Completed", "completed"),
            ("Next steps", "next_steps"),
            ("Notes", "notes"),
        )
        for row in self._conn.execute("SELECT * FROM session_summaries ORDER BY id"):
            session_id, project = self._session(row, sessions)
            lines = [f"{label}: {_pick(row, name)}" for label, name in labels if _pick(row, name)]
            for label, name in (("Files read", "files_read"), ("Files edited", "files_edited")):
                if values := _items(_pick(row, name)):
                    lines.append(f"{label}: {', '.join(values)}")
            created = timestamp(_pick(row, "created_at_epoch", "created_at"), _NOW)
            where = Where(TOOL, "session summary", f"#{row['id']}", str(self._path))
            request = title_from(_pick(row, "request"), fallback="session")
            yield (
                "observations",
                {
                    "sync_id": stable_id("obs", TOOL, "summary", session_id, created, row["id"]),
                    "session_id": session_id,
                    "type": "session_summary",
                    "title": f"Session summary: {request}"[:120],
                    "content": with_provenance("\n".join(lines) or request, where, self._limit),
                    "project": project,
                    "created_at": created,
                },
            )

    def _prompts(self, sessions: dict[str, tuple[str, str]]) -> Iterator[Record]:
        for row in self._conn.execute("SELECT * FROM user_prompts ORDER BY id"):
            key = _pick(row, "content_session_id", "claude_session_id")
            session_id, project = sessions.get(str(key), (None, ""))
            created = timestamp(_pick(row, "created_at_epoch", "created_at"), _NOW)
            yield (
                "prompts",
                {
                    "sync_id": stable_id("prompt", TOOL, session_id, created, row["id"]),
                    "session_id": session_id,
                    "content": clip(str(_pick(row, "prompt_text") or ""), self._limit),
                    "project": project,
                    "created_at": created,
                },
            )
