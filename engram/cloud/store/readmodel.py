"""What the dashboard reads: the live memories the replicated mutation log adds up to.

An entity's current version is its mutation with the highest ``(clock, origin)`` — the same
total order every replica applies (docs/sync.md). It is live unless that mutation is a
``delete`` or carries a ``deleted_at``. Every query pages with ``LIMIT``/``OFFSET`` and
filters by project in SQL; nothing here loads a whole table.
"""

from __future__ import annotations

from typing import Any

from engram.cloud.store.db import Conn

ENTITIES = ("observation", "session", "prompt")

_LATEST = """
    WITH latest AS (
        SELECT DISTINCT ON (project, entity_key)
               project, entity_key, op, payload, created_by, received_at, seq
        FROM cloud_mutations
        WHERE entity = %(entity)s
          AND (%(projects)s::text[] IS NULL OR project = ANY(%(projects)s))
        ORDER BY project, entity_key, clock DESC, origin DESC
    ), live AS (
        SELECT * FROM latest
        WHERE op <> 'delete' AND (payload->>'deleted_at') IS NULL
          AND (%(session_id)s::text IS NULL OR payload->>'session_id' = %(session_id)s)
          AND (%(contributor)s::text IS NULL OR created_by = %(contributor)s)
          AND (%(pattern)s::text IS NULL
               OR coalesce(payload->>'title', '') ILIKE %(pattern)s
               OR coalesce(payload->>'content', '') ILIKE %(pattern)s
               OR coalesce(payload->>'summary', '') ILIKE %(pattern)s)
    )
"""

_PAGE = (
    _LATEST
    + """
    SELECT project, entity_key AS key, payload, created_by, received_at,
           count(*) OVER () AS total
    FROM live
    ORDER BY coalesce(payload->>'created_at', payload->>'started_at', '') DESC, seq DESC
    LIMIT %(limit)s OFFSET %(offset)s
"""
)


def _like(query: str | None) -> str | None:
    if not query or not query.strip():
        return None
    escaped = query.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def live_page(
    conn: Conn,
    entity: str,
    *,
    projects: list[str] | None = None,
    query: str | None = None,
    session_id: str | None = None,
    contributor: str | None = None,
    limit: int = 20,
    offset: int = 0,
) -> tuple[int, list[dict[str, Any]]]:
    """``(total, one page newest first)`` of live entities of one kind."""
    params = {
        "entity": entity,
        "projects": projects,
        "pattern": _like(query),
        "session_id": session_id,
        "contributor": contributor,
        "limit": limit,
        "offset": offset,
    }
    rows = list(conn.execute(_PAGE, params).fetchall())
    total = int(rows[0]["total"]) if rows else 0
    if not rows and offset > 0:
        # Past the end: count without a page.
        counted = conn.execute(_LATEST + " SELECT count(*) AS total FROM live", params).fetchone()
        total = int(counted["total"]) if counted else 0
    return total, rows


def live_one(conn: Conn, entity: str, project: str, key: str) -> dict[str, Any] | None:
    """The current version of one entity (live or not), or None."""
    return conn.execute(
        """
        SELECT project, entity_key AS key, op, payload, created_by, received_at
        FROM cloud_mutations
        WHERE entity = %(entity)s AND project = %(project)s AND entity_key = %(key)s
        ORDER BY clock DESC, origin DESC
        LIMIT 1
        """,
        {"entity": entity, "project": project, "key": key},
    ).fetchone()


_COUNTS = (
    _LATEST
    + """
    SELECT count(*) AS live FROM live
"""
)


def live_count(conn: Conn, entity: str, projects: list[str] | None = None) -> int:
    """How many live entities of one kind (in these projects, or all)."""
    params = {
        "entity": entity,
        "projects": projects,
        "pattern": None,
        "session_id": None,
        "contributor": None,
    }
    row = conn.execute(_COUNTS, params).fetchone()
    return int(row["live"]) if row else 0


_PER_DAY = (
    _LATEST
    + """
    SELECT substring(payload->>'created_at' FROM 1 FOR 10) AS day, count(*) AS n
    FROM live
    WHERE payload->>'created_at' >= %(since)s
    GROUP BY 1 ORDER BY 1
"""
)


def observations_per_day(
    conn: Conn, since: str, projects: list[str] | None = None
) -> dict[str, int]:
    """Live observations created per day (``YYYY-MM-DD``) since ``since``."""
    params = {
        "entity": "observation",
        "projects": projects,
        "pattern": None,
        "session_id": None,
        "contributor": None,
        "since": since,
    }
    return {row["day"]: int(row["n"]) for row in conn.execute(_PER_DAY, params)}


_PER_PROJECT = """
    WITH latest AS (
        SELECT DISTINCT ON (project, entity_key) project, op, payload
        FROM cloud_mutations WHERE entity = 'observation'
          AND (%(projects)s::text[] IS NULL OR project = ANY(%(projects)s))
        ORDER BY project, entity_key, clock DESC, origin DESC
    )
    SELECT project, count(*) AS n FROM latest
    WHERE op <> 'delete' AND (payload->>'deleted_at') IS NULL
    GROUP BY project ORDER BY n DESC, project
    LIMIT %(limit)s
"""


def observations_per_project(
    conn: Conn, projects: list[str] | None = None, limit: int = 12
) -> dict[str, int]:
    """Live observations per project, largest first."""
    params = {"projects": projects, "limit": limit}
    return {row["project"]: int(row["n"]) for row in conn.execute(_PER_PROJECT, params)}


_PROJECTS = """
    SELECT p.name, p.sync_enabled, p.paused_by, p.updated_at, p.last_seq, p.created_at,
           (SELECT max(received_at) FROM cloud_mutations m WHERE m.project = p.name)
               AS last_activity,
           count(*) OVER () AS total
    FROM cloud_projects p
    WHERE (%(query)s::text IS NULL OR p.name ILIKE %(query)s)
      AND (%(projects)s::text[] IS NULL OR p.name = ANY(%(projects)s))
    ORDER BY p.name
    LIMIT %(limit)s OFFSET %(offset)s
"""


def projects_page(
    conn: Conn,
    *,
    projects: list[str] | None = None,
    query: str | None = None,
    limit: int = 20,
    offset: int = 0,
) -> tuple[int, list[dict[str, Any]]]:
    """``(total, one page by name)`` of projects with their sync switch and last activity."""
    params = {"query": _like(query), "projects": projects, "limit": limit, "offset": offset}
    rows = list(conn.execute(_PROJECTS, params).fetchall())
    return (int(rows[0]["total"]) if rows else 0), rows


_CONTRIBUTORS = """
    SELECT created_by AS name, count(*) AS mutations,
           count(DISTINCT project) AS projects,
           min(received_at) AS first_seen, max(received_at) AS last_seen,
           count(*) OVER () AS total
    FROM cloud_mutations
    WHERE (%(projects)s::text[] IS NULL OR project = ANY(%(projects)s))
    GROUP BY created_by
    ORDER BY max(received_at) DESC, created_by
    LIMIT %(limit)s OFFSET %(offset)s
"""


def contributors_page(
    conn: Conn, *, projects: list[str] | None = None, limit: int = 20, offset: int = 0
) -> tuple[int, list[dict[str, Any]]]:
    """``(total, one page, most recently active first)`` of contributors (who pushed)."""
    params = {"projects": projects, "limit": limit, "offset": offset}
    rows = list(conn.execute(_CONTRIBUTORS, params).fetchall())
    return (int(rows[0]["total"]) if rows else 0), rows


_CONTRIBUTOR_PROJECTS = """
    SELECT project, count(*) AS mutations, max(received_at) AS last_seen
    FROM cloud_mutations WHERE created_by = %(name)s
      AND (%(projects)s::text[] IS NULL OR project = ANY(%(projects)s))
    GROUP BY project ORDER BY max(received_at) DESC
    LIMIT 100
"""


def contributor_projects(
    conn: Conn, name: str, projects: list[str] | None = None
) -> list[dict[str, Any]]:
    """The projects one contributor pushed to, with counts."""
    params = {"name": name, "projects": projects}
    return list(conn.execute(_CONTRIBUTOR_PROJECTS, params).fetchall())


_CONTRIBUTORS_PER_DAY = """
    SELECT to_char(received_at AT TIME ZONE %(zone)s, 'YYYY-MM-DD') AS day,
           count(DISTINCT created_by) AS n
    FROM cloud_mutations
    WHERE received_at >= now() - make_interval(days => %(days)s)
      AND (%(projects)s::text[] IS NULL OR project = ANY(%(projects)s))
    GROUP BY 1 ORDER BY 1
"""


def contributors_per_day(
    conn: Conn, days: int, zone: str, projects: list[str] | None = None
) -> dict[str, int]:
    """Distinct contributors per day (in ``zone``) over the last ``days`` days."""
    params = {"days": days, "zone": zone, "projects": projects}
    return {row["day"]: int(row["n"]) for row in conn.execute(_CONTRIBUTORS_PER_DAY, params)}


_TOTALS = """
    SELECT (SELECT count(*) FROM cloud_projects) AS projects,
           (SELECT count(*) FROM cloud_projects WHERE NOT sync_enabled) AS paused,
           (SELECT count(DISTINCT created_by) FROM cloud_mutations) AS contributors,
           (SELECT count(*) FROM cloud_mutations) AS mutations,
           (SELECT count(*) FROM cloud_chunks) AS chunks
"""


def totals(conn: Conn) -> dict[str, int]:
    """Server-wide counts: projects, paused projects, contributors, mutations, chunks."""
    row = conn.execute(_TOTALS).fetchone()
    return {key: int(value) for key, value in (row or {}).items()}
