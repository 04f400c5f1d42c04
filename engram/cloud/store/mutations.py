"""The replicated mutation log (``cloud_mutations``) and its chunk history (``cloud_chunks``).

Ordering: a push locks its project's row in ``cloud_projects`` (``FOR UPDATE``) and takes the
next sequence numbers from it, so within one project sequences are dense and a reader can never
see sequence N+1 committed while N is still in flight — pulling "everything after my cursor"
loses nothing, however many servers share the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb

from engram.cloud.store.db import Conn
from engram.sync.mutation import Mutation

_ENSURE_PROJECT = """
    INSERT INTO cloud_projects (name) VALUES (%(project)s)
    ON CONFLICT (name) DO NOTHING
"""

_LOCK_PROJECT = """
    SELECT sync_enabled, last_seq
    FROM cloud_projects
    WHERE name = %(project)s
    FOR UPDATE
"""

_KNOWN_IDS = """
    SELECT m.origin, m.clock
    FROM cloud_mutations m
    JOIN UNNEST(%(origins)s::text[], %(clocks)s::bigint[]) AS k(origin, clock)
      ON m.origin = k.origin AND m.clock = k.clock
    WHERE m.project = %(project)s
"""

_INSERT_MUTATION = """
    INSERT INTO cloud_mutations
        (project, seq, origin, clock, entity, entity_key, op, entity_project, payload,
         created_by, principal_id, chunk_id)
    VALUES
        (%(project)s, %(seq)s, %(origin)s, %(clock)s, %(entity)s, %(entity_key)s, %(op)s, %(entity_project)s,
         %(payload)s,
         %(created_by)s, %(principal_id)s, %(chunk_id)s)
"""

_ADVANCE = """
    UPDATE cloud_projects SET last_seq = %(last_seq)s WHERE name = %(project)s
"""


@dataclass(frozen=True, slots=True)
class LockedProject:
    """A project row held for update for the rest of the transaction."""

    sync_enabled: bool
    last_seq: int


def lock_project(conn: Conn, project: str) -> LockedProject:
    """Create the project row if needed and lock it until the transaction ends."""
    conn.execute(_ENSURE_PROJECT, {"project": project})
    row = conn.execute(_LOCK_PROJECT, {"project": project}).fetchone()
    assert row is not None
    return LockedProject(bool(row["sync_enabled"]), int(row["last_seq"]))


def unknown_mutations(conn: Conn, project: str, batch: Sequence[Mutation]) -> list[Mutation]:
    """The mutations of ``batch`` the project has not stored yet (first of each id kept)."""
    params = {
        "project": project,
        "origins": [m.origin for m in batch],
        "clocks": [m.seq for m in batch],
    }
    known = {(r["origin"], r["clock"]) for r in conn.execute(_KNOWN_IDS, params)}
    fresh: list[Mutation] = []
    for mutation in batch:
        key = (mutation.origin, mutation.seq)
        if key not in known:
            known.add(key)
            fresh.append(mutation)
    return fresh


def append(
    conn: Conn,
    project: str,
    after_seq: int,
    batch: Sequence[Mutation],
    *,
    created_by: str,
    principal_id: str | None,
    chunk_id: str | None,
) -> int:
    """Insert ``batch`` with sequences after ``after_seq`` (project row locked); return the last."""
    rows = [
        {
            "project": project,
            "seq": after_seq + offset,
            "origin": m.origin,
            "clock": m.seq,
            "entity": m.entity,
            "entity_key": m.key,
            "entity_project": m.project,
            "op": m.op,
            "payload": Jsonb(m.payload),
            "created_by": created_by,
            "principal_id": principal_id,
            "chunk_id": chunk_id,
        }
        for offset, m in enumerate(batch, start=1)
    ]
    last_seq = after_seq + len(rows)
    if rows:
        with conn.cursor() as cur:
            cur.executemany(_INSERT_MUTATION, rows)
        conn.execute(_ADVANCE, {"project": project, "last_seq": last_seq})
    return last_seq


_PULL = """
    SELECT seq, origin, clock, entity, entity_key, op, entity_project, payload, created_by, received_at
    FROM cloud_mutations
    WHERE project = %(project)s AND seq > %(since)s
    ORDER BY seq
    LIMIT %(limit)s
"""


def pull(conn: Conn, project: str, since: int, limit: int) -> list[dict[str, Any]]:
    """Mutations of ``project`` with a sequence above ``since``, oldest first."""
    rows = conn.execute(_PULL, {"project": project, "since": since, "limit": limit}).fetchall()
    return list(rows)


_LAST_SEQ = "SELECT last_seq FROM cloud_projects WHERE name = %(project)s"


def last_seq(conn: Conn, project: str) -> int:
    """The project's highest sequence (0 for a project never pushed to)."""
    row = conn.execute(_LAST_SEQ, {"project": project}).fetchone()
    return int(row["last_seq"]) if row else 0


# --- chunks --------------------------------------------------------------------------------

_INSERT_CHUNK = """
    INSERT INTO cloud_chunks
        (project, chunk_id, created_by, origin, content, mutation_count, byte_size, claimed_by,
         principal_id)
    VALUES
        (%(project)s, %(chunk_id)s, %(created_by)s, %(origin)s, %(content)s,
         %(mutation_count)s, %(byte_size)s, %(claimed_by)s, %(principal_id)s)
    ON CONFLICT (project, chunk_id) DO NOTHING
"""


def insert_chunk(
    conn: Conn,
    project: str,
    chunk_id: str,
    content: bytes,
    *,
    created_by: str,
    origin: str,
    mutation_count: int,
    claimed_by: str | None = None,
    principal_id: str | None = None,
) -> bool:
    """Store a chunk attributed to ``created_by`` (the principal; ``claimed_by`` is what the
    pusher said, kept as a label); False when the project already holds that chunk id."""
    cur = conn.execute(
        _INSERT_CHUNK,
        {
            "project": project,
            "chunk_id": chunk_id,
            "created_by": created_by,
            "origin": origin,
            "content": content,
            "mutation_count": mutation_count,
            "byte_size": len(content),
            "claimed_by": claimed_by,
            "principal_id": principal_id,
        },
    )
    return cur.rowcount == 1


_CHUNK_EXISTS = """
    SELECT 1 FROM cloud_chunks WHERE project = %(project)s AND chunk_id = %(chunk_id)s
"""


def has_chunk(conn: Conn, project: str, chunk_id: str) -> bool:
    """True when the project already stores ``chunk_id``."""
    params = {"project": project, "chunk_id": chunk_id}
    return conn.execute(_CHUNK_EXISTS, params).fetchone() is not None


_LIST_CHUNKS = """
    SELECT chunk_id, created_by, claimed_by, origin, mutation_count, byte_size, created_at
    FROM cloud_chunks
    WHERE project = %(project)s
    ORDER BY created_at, chunk_id
"""


def list_chunks(conn: Conn, project: str) -> list[dict[str, Any]]:
    """The project's chunk manifest, oldest first."""
    return list(conn.execute(_LIST_CHUNKS, {"project": project}).fetchall())


_GET_CHUNK = """
    SELECT chunk_id, created_by, claimed_by, origin, content, mutation_count, created_at
    FROM cloud_chunks
    WHERE project = %(project)s AND chunk_id = %(chunk_id)s
"""


def get_chunk(conn: Conn, project: str, chunk_id: str) -> dict[str, Any] | None:
    """One chunk with its bytes, or None."""
    params = {"project": project, "chunk_id": chunk_id}
    row = conn.execute(_GET_CHUNK, params).fetchone()
    if row is not None:
        row["content"] = bytes(row["content"])
    return row


# --- repair: mutations pushed before they were materialized into chunks --------------------

_UNCHUNKED = """
    SELECT seq, origin, clock, entity, entity_key, op, entity_project, payload, created_by
    FROM cloud_mutations
    WHERE project = %(project)s AND chunk_id IS NULL
    ORDER BY seq
"""

_SET_CHUNK = """
    UPDATE cloud_mutations SET chunk_id = %(chunk_id)s
    WHERE project = %(project)s AND seq = ANY(%(seqs)s) AND chunk_id IS NULL
"""


def unchunked(conn: Conn, project: str) -> list[dict[str, Any]]:
    """Mutations not yet part of any chunk, oldest first."""
    return list(conn.execute(_UNCHUNKED, {"project": project}).fetchall())


def assign_chunk(conn: Conn, project: str, seqs: Sequence[int], chunk_id: str) -> None:
    """Record that the mutations ``seqs`` are materialized in ``chunk_id``."""
    conn.execute(_SET_CHUNK, {"project": project, "seqs": list(seqs), "chunk_id": chunk_id})
