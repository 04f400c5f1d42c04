"""SQL for the conflict audit: listing and counting relations (the scan walks memories with
:func:`engram.store.browse.live_after`).

A relation has no project column; its project is its source observation's (or, when the
source is gone, its target's). ``not_conflict`` verdicts only suppress future scans: they are
left out of every list and count here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from engram.store.records import Relation, from_row

_JOINED = """
    FROM memory_relations r
    LEFT JOIN observations src ON src.sync_id = r.source_id
    LEFT JOIN observations dst ON dst.sync_id = r.target_id
    WHERE r.relation != 'not_conflict'
"""
_PROJECT = "coalesce(src.project, dst.project)"


@dataclass(frozen=True, slots=True)
class RelationView:
    """A relation with both ends resolved (ids, titles and content None when an end is gone)."""

    relation: Relation
    project: str | None
    source_obs_id: int | None
    source_title: str | None
    source_content: str | None
    target_obs_id: int | None
    target_title: str | None
    target_content: str | None


def _filters(
    project: str | None, status: str | None, since: str | None
) -> tuple[str, list[object]]:
    clauses: list[str] = []
    params: list[object] = []
    if project is not None:
        clauses.append(f"{_PROJECT} = ?")
        params.append(project)
    if status is not None:
        clauses.append("r.judgment_status = ?")
        params.append(status)
    if since is not None:
        clauses.append("r.created_at >= ?")
        params.append(since)
    return "".join(f" AND {c}" for c in clauses), params


def _view(row: sqlite3.Row) -> RelationView:
    return RelationView(
        relation=from_row(Relation, row),
        project=row["x_project"],
        source_obs_id=row["x_src_id"],
        source_title=row["x_src_title"],
        source_content=row["x_src_content"],
        target_obs_id=row["x_dst_id"],
        target_title=row["x_dst_title"],
        target_content=row["x_dst_content"],
    )


_SELECT = f"""
    SELECT r.*, {_PROJECT} AS x_project,
           src.id AS x_src_id, src.title AS x_src_title, src.content AS x_src_content,
           dst.id AS x_dst_id, dst.title AS x_dst_title, dst.content AS x_dst_content
"""


def list_relations(
    conn: sqlite3.Connection,
    *,
    project: str | None,
    status: str | None,
    since: str | None,
    limit: int,
    offset: int,
) -> tuple[int, list[RelationView]]:
    """``(total matching, one page newest first)`` of relations that may be conflicts."""
    where, params = _filters(project, status, since)
    total = conn.execute(f"SELECT count(*) {_JOINED}{where}", params).fetchone()[0]
    rows = conn.execute(
        f"{_SELECT} {_JOINED}{where} ORDER BY r.id DESC LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    return int(total), [_view(row) for row in rows]


def get_view(conn: sqlite3.Connection, relation_id: int) -> RelationView | None:
    """One relation by its numeric id with both ends, or None (``not_conflict`` included)."""
    row = conn.execute(
        f"""{_SELECT}
        FROM memory_relations r
        LEFT JOIN observations src ON src.sync_id = r.source_id
        LEFT JOIN observations dst ON dst.sync_id = r.target_id
        WHERE r.id = ?""",
        (relation_id,),
    ).fetchone()
    return _view(row) if row else None


def counts(
    conn: sqlite3.Connection, *, project: str | None
) -> tuple[dict[str, int], dict[str, int]]:
    """``(count by relation, count by judgment_status)`` of conflict-facing relations."""
    where, params = _filters(project, None, None)
    by_relation = {
        row[0]: int(row[1])
        for row in conn.execute(
            f"SELECT r.relation, count(*) {_JOINED}{where} GROUP BY r.relation ORDER BY r.relation",
            params,
        )
    }
    by_status = {
        row[0]: int(row[1])
        for row in conn.execute(
            f"SELECT r.judgment_status, count(*) {_JOINED}{where}"
            " GROUP BY r.judgment_status ORDER BY r.judgment_status",
            params,
        )
    }
    return by_relation, by_status


def related_pairs(conn: sqlite3.Connection, sync_ids: Iterable[str]) -> set[frozenset[str]]:
    """Every unordered pair of observation sync_ids already joined by a relation (any verdict
    or state) where one end is among ``sync_ids``."""
    ids = sorted(set(sync_ids))
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        f"SELECT source_id, target_id FROM memory_relations WHERE source_id IN ({marks})"
        f" UNION ALL SELECT source_id, target_id FROM memory_relations WHERE target_id IN ({marks})",
        [*ids, *ids],
    )
    return {frozenset((row[0], row[1])) for row in rows}


def deferred_counts(conn: sqlite3.Connection) -> tuple[int, int]:
    """``(deferred, dead)`` rows of the sync queue (0, 0 on a store without one)."""
    present = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_apply_deferred'"
    ).fetchone()
    if not present:
        return 0, 0
    rows = dict(
        conn.execute(
            "SELECT apply_status, count(*) FROM sync_apply_deferred"
            " WHERE apply_status IN ('deferred', 'dead') GROUP BY apply_status"
        ).fetchall()
    )
    return int(rows.get("deferred", 0)), int(rows.get("dead", 0))
