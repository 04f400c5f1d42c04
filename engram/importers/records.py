"""What every importer shares: stable ids, timestamps, the provenance note, reading SQLite.

A source record becomes a dict of the backup format (``kind`` is ``sessions``,
``observations`` or ``prompts``); :mod:`engram.importers.run` validates and writes them.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from engram.errors import EngramError

Record = tuple[str, dict[str, Any]]  # (kind, backup-format fields)


class Source(Protocol):
    """One opened store of another tool."""

    total: int  # how many records :meth:`records` will yield (for progress)

    def records(self) -> Iterator[Record]:
        """Sessions first, then the rows that name them."""
        ...

    def close(self) -> None:
        """Release the file."""
        ...


@dataclass(frozen=True)
class Options:
    """What an importer is told: the content limit, ``--project`` (None: the source's own),
    the project for records the source gives none, and the home to find its config in."""

    limit: int
    project: str | None
    default_project: str
    home: Path


@dataclass(frozen=True)
class Where:
    """How the provenance note names a record: ``tool``, its kind and id, the store path."""

    tool: str
    kind: str
    key: str
    path: str


def stable_id(prefix: str, tool: str, *parts: object) -> str:
    """An id that is the same every time the same source record is read."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()
    return f"{prefix}-{tool}-{digest[:20]}"


def timestamp(value: object, default: str | None = None) -> str | None:
    """``YYYY-MM-DD HH:MM:SS`` UTC from epoch seconds or milliseconds, or an ISO string."""
    if isinstance(value, bool) or value is None or value == "":
        return default
    try:
        if isinstance(value, int | float):
            seconds = value / 1000 if value > 10_000_000_000 else value
            moment = datetime.fromtimestamp(seconds, UTC)
        else:
            moment = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
            if moment.tzinfo is not None:
                moment = moment.astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return default
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def with_provenance(content: str, where: Where, limit: int) -> str:
    """The content with a last line saying where it came from, within ``limit`` bytes."""
    note = f"\n\n(imported from {where.tool}: {where.kind} {where.key} of {where.path})"
    room = limit - len(note.encode("utf-8")) - 16
    body = content.strip()
    if len(body.encode("utf-8")) > room:
        body = body.encode("utf-8")[:room].decode("utf-8", "ignore") + " [truncated]"
    return body + note


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` UTF-8 bytes (marked), so a long record is kept, not refused."""
    if len(text.encode("utf-8")) <= limit:
        return text
    return text.encode("utf-8")[: limit - 16].decode("utf-8", "ignore") + " [truncated]"


def title_from(*candidates: object, fallback: str = "(untitled)") -> str:
    """The first non-empty candidate's first line, at most 120 characters."""
    for candidate in candidates:
        if isinstance(candidate, str):
            line = next((ln.strip() for ln in candidate.splitlines() if ln.strip()), "")
            if line:
                return line[:120]
    return fallback


def unrecognised(tool: str, path: Path, why: str) -> EngramError:
    """The one-line refusal of a file that is not the tool's store."""
    return EngramError(
        "import.unrecognised",
        f"{path} is not a {tool} store ({why}); nothing was imported",
        f"pass the {tool} store itself (see docs/migrating.md, 'Other tools')",
    )


def open_sqlite(path: Path, tool: str, needed: dict[str, set[str]]) -> sqlite3.Connection:
    """A read-only connection to ``path``, refused unless it has the ``needed`` columns."""
    import os
    from urllib.parse import quote

    if not path.is_file():
        raise unrecognised(tool, path, "no such file" if not path.exists() else "not a file")
    try:
        conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        for table, columns in needed.items():
            found = {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}
            if not columns <= found:
                conn.close()
                raise unrecognised(
                    tool, path, f"no {table} table with {', '.join(sorted(columns))}"
                )
    except sqlite3.DatabaseError as exc:
        raise unrecognised(tool, path, f"not an SQLite database: {exc}") from None
    return conn


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """The column names of ``table`` (empty when it does not exist)."""
    return {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}
