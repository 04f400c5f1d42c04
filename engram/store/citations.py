"""SQL for code citations (``code_citations``) and the per-file check cache (``code_file_checks``).

A citation is what a memory named of a working tree when it was saved: a repository-relative
path, an optional line and symbol, and the file's blob id then. The check cache holds, per file,
what reading it last found (keyed by the file's identity), so a served memory costs a ``stat``
and no read while its files are unchanged. Both tables are local: nothing here is journalled.

This module is on the hook path: it imports nothing beyond the records.
"""

from __future__ import annotations

from engram.store.records import Record, from_rows, record

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable


@record
class Citation(Record):
    """One row of ``code_citations``."""

    observation_id: int
    repo_root: str
    commit_id: str
    path: str
    line: int | None
    symbol: str | None
    symbol_kind: str | None
    blob_id: str
    used_at: str


@record
class FileCheck(Record):
    """One row of ``code_file_checks``: what a check found for ``path`` with ``identity``."""

    repo_root: str
    path: str
    identity: str
    blob_id: str | None
    symbols: str | None
    moved_to: str | None
    deleted_in: str | None


_CITATION_COLUMNS = (
    "observation_id, repo_root, commit_id, path, line, symbol, symbol_kind, blob_id, used_at"
)


def replace_for(conn: sqlite3.Connection, observation_id: int, rows: Iterable[Citation]) -> None:
    """Make ``rows`` the citations of ``observation_id`` (a save re-finds them all)."""
    conn.execute("DELETE FROM code_citations WHERE observation_id = ?", (observation_id,))
    conn.executemany(
        f"INSERT INTO code_citations ({_CITATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                observation_id,
                r.repo_root,
                r.commit_id,
                r.path,
                r.line,
                r.symbol,
                r.symbol_kind,
                r.blob_id,
                r.used_at,
            )
            for r in rows
        ],
    )


def for_observations(conn: sqlite3.Connection, ids: Iterable[int]) -> list[Citation]:
    """The citations of the observations ``ids`` (at most 500 ids are asked at once)."""
    wanted = sorted({int(i) for i in ids})
    found: list[Citation] = []
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        cursor = conn.execute(
            f"SELECT {_CITATION_COLUMNS} FROM code_citations"
            f" WHERE observation_id IN ({marks}) ORDER BY observation_id, id",
            chunk,
        )
        found += from_rows(Citation, cursor)
    return found


def cited_observation_ids(
    conn: sqlite3.Connection, *, project: str | None, after_id: int = 0, limit: int = 500
) -> list[int]:
    """Live observations (of ``project``, or every project) that cite code, by id, a page at
    a time (ids above ``after_id``)."""
    clauses = ["o.deleted_at IS NULL", "o.id > ?"]
    params: list[object] = [after_id]
    if project is not None:
        clauses.append("o.project = ?")
        params.append(project)
    rows = conn.execute(
        "SELECT DISTINCT o.id FROM code_citations c JOIN observations o ON o.id = c.observation_id"
        f" WHERE {' AND '.join(clauses)} ORDER BY o.id LIMIT ?",
        [*params, limit],
    ).fetchall()
    return [int(row[0]) for row in rows]


def mark_used(conn: sqlite3.Connection, observation_id: int, now: str) -> None:
    """Record that an agent fetched ``observation_id`` (renews a stale memory's grace time)."""
    conn.execute(
        "UPDATE code_citations SET used_at = ? WHERE observation_id = ?", (now, observation_id)
    )


def file_checks(conn: sqlite3.Connection, keys: Iterable[tuple[str, str]]) -> list[FileCheck]:
    """The cached checks of the files ``keys`` (``(repo_root, path)`` pairs): one statement
    per repository (at most 500 paths at once)."""
    by_root: dict[str, list[str]] = {}
    for root, path in set(keys):
        by_root.setdefault(root, []).append(path)
    found: list[FileCheck] = []
    for root, paths in by_root.items():
        for start in range(0, len(paths), 500):
            chunk = paths[start : start + 500]
            cursor = conn.execute(
                "SELECT repo_root, path, identity, blob_id, symbols, moved_to, deleted_in"
                f" FROM code_file_checks WHERE repo_root = ? AND path IN ({', '.join('?' * len(chunk))})",
                [root, *chunk],
            )
            found += from_rows(FileCheck, cursor)
    return found


def put_file_checks(conn: sqlite3.Connection, checks: Iterable[FileCheck]) -> None:
    """Store (replacing) what checks found for some files."""
    conn.executemany(
        "INSERT OR REPLACE INTO code_file_checks"
        " (repo_root, path, identity, blob_id, symbols, moved_to, deleted_in)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (c.repo_root, c.path, c.identity, c.blob_id, c.symbols, c.moved_to, c.deleted_in)
            for c in checks
        ],
    )
