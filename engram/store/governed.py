"""SQL for governed project knowledge (the ``engram_*`` tools).

Every statement that touches ``governed_memories``, ``governed_fts`` or ``governed_settings``
lives here; ``engram.memory.governed`` turns the rows into results. Rows come back as plain
dicts (column name -> value) so this module knows nothing of the layers above it.

Public API:
    insert_memory(conn, row) -> int            new rowid
    update_memory(conn, rowid, fields)         set columns on one row
    delete_memory(conn, rowid)
    get_memory(conn, project, memory_id, tier=None) -> dict | None
    find_active_by_key(conn, project, scope, key) -> dict | None
    find_active_by_norm_hash(conn, project, norm_hash) -> dict | None
    id_taken(conn, project, memory_id) -> bool
    list_visible(conn, project, today) -> list[dict]   active durable + unexpired working
    list_routable(conn, project, today, rowids) -> list[dict]   rules, notes and rowids
    get_rows(conn, rowids) -> list[dict]
    (has_active_memories: engram.store.governed_presence, light for the hook path)
    list_all(conn) -> list[dict]
    fts_scores(conn, project, terms, limit) -> dict[int, float]   rowid -> bm25 (lower = better)
    bump_counter(conn, rowids, column)
    get_setting / set_setting
    counts(conn, project) -> dict
    recent_journal_observations(conn, project, sessions, types, limit) -> list[dict]
    top_by_usage(conn, project, today, limit) -> list[dict]
    immediate(conn)                            BEGIN IMMEDIATE context manager
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager

TYPE_CHECKING = False  # typing and collections.abc cost the hook path more than its work
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping
    from typing import Any

COLUMNS = (
    "id",
    "project",
    "scope",
    "tier",
    "key",
    "type",
    "title",
    "body",
    "variants",
    "roles",
    "objective",
    "source",
    "content_hash",
    "norm_hash",
    "status",
    "superseded_by",
    "valid_until",
    "usage_count",
    "fetch_count",
    "created_at",
    "updated_at",
)
_UPDATABLE = frozenset(COLUMNS) - {"project", "tier"}
# The usage counters loads and fetches bump (never part of what a memory shows).
COUNTERS = frozenset({"usage_count", "fetch_count"})
_VISIBLE = (
    "(project = ? OR project = '') AND status = 'active' AND (tier = 'durable' OR valid_until >= ?)"
)


def _dicts(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _one(cursor: sqlite3.Cursor) -> dict[str, Any] | None:
    rows = _dicts(cursor)
    return rows[0] if rows else None


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction taken with BEGIN IMMEDIATE (no upgrade deadlocks)."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def insert_memory(conn: sqlite3.Connection, row: Mapping[str, Any]) -> int:
    """Insert one memory row (every column of :data:`COLUMNS` but the counters optional)."""
    names = [c for c in COLUMNS if c in row]
    sql = (
        f"INSERT INTO governed_memories ({', '.join(names)}) "
        f"VALUES ({', '.join('?' for _ in names)})"
    )
    cursor = conn.execute(sql, [row[c] for c in names])
    return int(cursor.lastrowid or 0)


def update_memory(conn: sqlite3.Connection, rowid: int, fields: Mapping[str, Any]) -> None:
    """Set the given columns on one row; unknown or identity columns are refused."""
    bad = set(fields) - _UPDATABLE
    if bad:
        raise ValueError(f"not updatable: {sorted(bad)}")
    assignments = ", ".join(f"{name} = ?" for name in fields)
    conn.execute(
        f"UPDATE governed_memories SET {assignments} WHERE rowid = ?", [*fields.values(), rowid]
    )


def delete_memory(conn: sqlite3.Connection, rowid: int) -> None:
    """Remove one row (used when a working note is promoted)."""
    conn.execute("DELETE FROM governed_memories WHERE rowid = ?", (rowid,))


def get_memory(
    conn: sqlite3.Connection, project: str, memory_id: str, tier: str | None = None
) -> dict[str, Any] | None:
    """One memory by id, visible from ``project``: durable before working, project before global."""
    sql = (
        "SELECT rowid, * FROM governed_memories WHERE id = ? AND (project = ? OR project = '')"
        + (" AND tier = ?" if tier else "")
        + " ORDER BY tier = 'working', project = '' LIMIT 1"
    )
    params: list[Any] = [memory_id, project] + ([tier] if tier else [])
    return _one(conn.execute(sql, params))


def find_active_by_key(
    conn: sqlite3.Connection, project: str, scope: str, key: str
) -> dict[str, Any] | None:
    """The live durable memory holding ``key`` in one scope of a project."""
    owner = "" if scope == "global" else project
    return _one(
        conn.execute(
            "SELECT rowid, * FROM governed_memories WHERE project = ? AND scope = ? AND key = ? "
            "AND tier = 'durable' AND status = 'active' ORDER BY rowid LIMIT 1",
            (owner, scope, key),
        )
    )


def find_active_by_norm_hash(
    conn: sqlite3.Connection, project: str, norm_hash: str
) -> dict[str, Any] | None:
    """A live durable memory visible from ``project`` with the same normalized content."""
    return _one(
        conn.execute(
            "SELECT rowid, * FROM governed_memories WHERE norm_hash = ? "
            "AND (project = ? OR project = '') AND tier = 'durable' AND status = 'active' "
            "ORDER BY project = '', rowid LIMIT 1",
            (norm_hash, project),
        )
    )


def id_taken(conn: sqlite3.Connection, project: str, memory_id: str) -> bool:
    """Whether ``memory_id`` is used, in either tier, by this project or by a global memory
    (``engram_load id=`` finds a memory by its id alone: a note and a durable memory never
    share one)."""
    row = conn.execute(
        "SELECT 1 FROM governed_memories WHERE id = ? "
        "AND (project = ? OR project = '' OR ? = '') LIMIT 1",
        (memory_id, project, project),
    ).fetchone()
    return row is not None


def list_visible(conn: sqlite3.Connection, project: str, today: str) -> list[dict[str, Any]]:
    """Active durable memories and unexpired working notes visible from ``project``."""
    return _dicts(
        conn.execute(
            f"SELECT rowid, * FROM governed_memories WHERE {_VISIBLE} ORDER BY id, tier, project",
            (project, today),
        )
    )


def list_routable(
    conn: sqlite3.Connection, project: str, today: str, rowids: Iterable[int]
) -> list[dict[str, Any]]:
    """Visible rows a task can route to: every rule, every working note, and ``rowids``."""
    ids = sorted(set(rowids))
    marks = ", ".join("?" for _ in ids) or "NULL"
    return _dicts(
        conn.execute(
            f"SELECT rowid, * FROM governed_memories WHERE {_VISIBLE} AND (type = 'rule' "
            f"OR tier = 'working' OR rowid IN ({marks})) ORDER BY id, tier, project",
            (project, today, *ids),
        )
    )


def get_rows(conn: sqlite3.Connection, rowids: Iterable[int]) -> list[dict[str, Any]]:
    """Rows by rowid, in rowid order."""
    ids = sorted(set(rowids))
    if not ids:
        return []
    marks = ", ".join("?" for _ in ids)
    return _dicts(
        conn.execute(
            f"SELECT rowid, * FROM governed_memories WHERE rowid IN ({marks}) ORDER BY rowid", ids
        )
    )


def list_all(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every row, for integrity checks."""
    return _dicts(conn.execute("SELECT rowid, * FROM governed_memories ORDER BY rowid"))


def fts_terms(query: str) -> list[str]:
    """The words of a free-text query, lowercased and de-duplicated in order."""
    import re  # only here: the hook path imports this module and needs no regex

    seen: dict[str, None] = {}
    for word in re.findall(r"\w+", query.lower()):
        seen.setdefault(word, None)
    return list(seen)


def fts_scores(
    conn: sqlite3.Connection, project: str, today: str, terms: Iterable[str], limit: int = 200
) -> dict[int, float]:
    """bm25 of visible memories matching any term (lower is better); title weighs most.

    Each term is quoted, so no user input can raise an FTS syntax error.
    """
    quoted = [f'"{t.replace(chr(34), chr(34) * 2)}"' for t in terms if t]
    if not quoted:
        return {}
    sql = (
        "SELECT m.rowid, bm25(governed_fts, 4.0, 1.0, 2.0, 1.0) AS rank "
        "FROM governed_fts JOIN governed_memories m ON m.rowid = governed_fts.rowid "
        f"WHERE governed_fts MATCH ? AND {_VISIBLE.replace('project', 'm.project')} "
        "ORDER BY rank, m.rowid LIMIT ?"
    )
    rows = conn.execute(sql, (" OR ".join(quoted), project, today, limit)).fetchall()
    return {int(r[0]): float(r[1]) for r in rows}


def bump_counter(conn: sqlite3.Connection, rowids: Iterable[int], column: str) -> None:
    """Add one to ``usage_count`` or ``fetch_count`` of each row."""
    if column not in COUNTERS:
        raise ValueError(column)
    conn.executemany(
        f"UPDATE governed_memories SET {column} = {column} + 1 WHERE rowid = ?",
        [(r,) for r in rowids],
    )


def top_by_usage(
    conn: sqlite3.Connection, project: str, today: str, limit: int
) -> list[dict[str, Any]]:
    """The most used visible memories (loads + fetches), ties broken by id."""
    return _dicts(
        conn.execute(
            f"SELECT rowid, * FROM governed_memories WHERE {_VISIBLE} "
            "ORDER BY usage_count + fetch_count DESC, id LIMIT ?",
            (project, today, limit),
        )
    )


def get_setting(conn: sqlite3.Connection, project: str, name: str) -> str | None:
    """A per-project switch, or None when unset."""
    row = conn.execute(
        "SELECT value FROM governed_settings WHERE project = ? AND name = ?", (project, name)
    ).fetchone()
    return None if row is None else str(row[0])


def set_setting(conn: sqlite3.Connection, project: str, name: str, value: str) -> None:
    """Set a per-project switch."""
    conn.execute(
        "INSERT INTO governed_settings (project, name, value) VALUES (?, ?, ?) "
        "ON CONFLICT (project, name) DO UPDATE SET value = excluded.value",
        (project, name, value),
    )


def counts(conn: sqlite3.Connection, project: str, today: str) -> dict[str, Any]:
    """Counts for status: by tier, by type (durable, visible), superseded and expired."""
    by_type = dict(
        conn.execute(
            f"SELECT type, COUNT(*) FROM governed_memories WHERE {_VISIBLE} AND tier = 'durable' "
            "GROUP BY type ORDER BY type",
            (project, today),
        ).fetchall()
    )
    one = conn.execute(
        "SELECT "
        "SUM(tier = 'durable' AND status = 'active'), "
        "SUM(tier = 'working' AND valid_until >= ?), "
        "SUM(status = 'superseded'), "
        "SUM(tier = 'working' AND valid_until < ?) "
        "FROM governed_memories WHERE project = ? OR project = ''",
        (today, today, project),
    ).fetchone()
    durable, working, superseded, expired = (int(v or 0) for v in one)
    return {
        "durable": durable,
        "working": working,
        "superseded": superseded,
        "expired_notes": expired,
        "by_type": by_type,
    }


def recent_journal_observations(
    conn: sqlite3.Connection, project: str, sessions: int, types: Iterable[str], limit: int
) -> list[dict[str, Any]]:
    """Live journal observations of the project's ``sessions`` most recent sessions.

    Only the given observation types, oldest first, at most ``limit`` (the newest ones).
    """
    wanted = sorted(set(types))
    if not wanted or sessions < 1 or limit < 1:
        return []
    marks = ", ".join("?" for _ in wanted)
    rows = _dicts(
        conn.execute(
            "SELECT o.id, o.type, o.title, o.content, o.topic_key, o.session_id "
            "FROM observations o WHERE o.deleted_at IS NULL AND o.project = ? "
            f"AND o.type IN ({marks}) AND o.session_id IN ("
            "  SELECT s.id FROM sessions s WHERE s.project = ? "
            "  ORDER BY s.started_at DESC, s.id DESC LIMIT ?) "
            "ORDER BY o.id DESC LIMIT ?",
            (project, *wanted, project, sessions, limit),
        )
    )
    return list(reversed(rows))
