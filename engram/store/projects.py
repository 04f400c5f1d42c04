"""SQL across projects: names with their counts, totals, and moving rows between names."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProjectCounts:
    """One project name and how much is stored under it (live observations only)."""

    name: str
    observation_count: int
    session_count: int
    prompt_count: int
    directories: tuple[str, ...]


def list_with_counts(conn: sqlite3.Connection) -> list[ProjectCounts]:
    """Every non-blank project name, most observations first, then by name."""
    rows = conn.execute(
        "WITH names AS ("
        "  SELECT project FROM observations WHERE deleted_at IS NULL"
        "  UNION SELECT project FROM sessions UNION SELECT project FROM user_prompts)"
        " SELECT n.project AS name,"
        "  (SELECT count(*) FROM observations o WHERE o.project = n.project"
        "     AND o.deleted_at IS NULL) AS observation_count,"
        "  (SELECT count(*) FROM sessions s WHERE s.project = n.project) AS session_count,"
        "  (SELECT count(*) FROM user_prompts p WHERE p.project = n.project) AS prompt_count,"
        "  (SELECT group_concat(DISTINCT s.directory) FROM sessions s"
        "     WHERE s.project = n.project AND s.directory != '') AS directories"
        " FROM names n WHERE n.project != ''"
        " ORDER BY observation_count DESC, name"
    ).fetchall()
    return [
        ProjectCounts(
            row["name"],
            row["observation_count"],
            row["session_count"],
            row["prompt_count"],
            tuple(sorted(row["directories"].split(","))) if row["directories"] else (),
        )
        for row in rows
    ]


def known_names(conn: sqlite3.Connection) -> list[str]:
    """Every non-blank project name that has any row."""
    return [counts.name for counts in list_with_counts(conn)]


@dataclass(frozen=True, slots=True)
class MoveCounts:
    """Rows under one project name (what a merge would move, or moved)."""

    observations: int
    sessions: int
    prompts: int


def counts_for(conn: sqlite3.Connection, project: str) -> MoveCounts:
    """How many observations (including soft-deleted), sessions and prompts carry ``project``."""
    return MoveCounts(
        int(
            conn.execute(
                "SELECT count(*) FROM observations WHERE project = ?", (project,)
            ).fetchone()[0]
        ),
        int(
            conn.execute("SELECT count(*) FROM sessions WHERE project = ?", (project,)).fetchone()[
                0
            ]
        ),
        int(
            conn.execute(
                "SELECT count(*) FROM user_prompts WHERE project = ?", (project,)
            ).fetchone()[0]
        ),
    )


def move(conn: sqlite3.Connection, source: str, target: str) -> MoveCounts:
    """Re-label every row of ``source`` as ``target``; return how many rows moved."""
    observations = conn.execute(
        "UPDATE observations SET project = ? WHERE project = ?", (target, source)
    ).rowcount
    sessions = conn.execute(
        "UPDATE sessions SET project = ? WHERE project = ?", (target, source)
    ).rowcount
    prompts = conn.execute(
        "UPDATE user_prompts SET project = ? WHERE project = ?", (target, source)
    ).rowcount
    conn.execute("UPDATE prompt_tombstones SET project = ? WHERE project = ?", (target, source))
    # Cloud enrollment follows the rows: an enrolled source leaves its target enrolled.
    conn.execute(
        "INSERT OR IGNORE INTO sync_enrolled_projects (project, enrolled_at)"
        " SELECT ?, enrolled_at FROM sync_enrolled_projects WHERE project = ?",
        (target, source),
    )
    conn.execute("DELETE FROM sync_enrolled_projects WHERE project = ?", (source,))
    return MoveCounts(observations, sessions, prompts)


@dataclass(frozen=True, slots=True)
class Totals:
    """Store-wide (or one project's) counts for ``stats``."""

    sessions: int
    observations: int
    prompts: int
    pinned: int
    relations: int


def totals(conn: sqlite3.Connection, project: str | None) -> Totals:
    """Counts of live observations, sessions, prompts, pins and relations."""
    where, params = ("", []) if project is None else (" AND project = ?", [project])
    # Two counts, each answered from a partial index (observations_live, observations_pinned)
    # without reading the rows themselves.
    live = conn.execute(
        f"SELECT count(*) FROM observations WHERE deleted_at IS NULL{where}", params
    ).fetchone()
    pinned = conn.execute(
        f"SELECT count(*) FROM observations WHERE pinned = 1 AND deleted_at IS NULL{where}",
        params,
    ).fetchone()
    sessions = conn.execute(f"SELECT count(*) FROM sessions WHERE 1{where}", params).fetchone()
    prompts = conn.execute(f"SELECT count(*) FROM user_prompts WHERE 1{where}", params).fetchone()
    relation_sql = "SELECT count(*) FROM memory_relations"
    if project is not None:
        relation_sql += (
            " r WHERE EXISTS (SELECT 1 FROM observations o WHERE o.sync_id = r.source_id"
            " AND o.project = ?)"
        )
    relations = conn.execute(relation_sql, params).fetchone()
    return Totals(
        int(sessions[0]), int(live[0]), int(prompts[0]), int(pinned[0]), int(relations[0])
    )
