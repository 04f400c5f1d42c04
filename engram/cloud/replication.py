"""Replication operations: push and pull mutations and chunks, with pause controls.

Every accepted mutation push is also materialized into a chunk attributed to the authenticated
principal (display name, else id, else ``unknown`` — never the envelope's ``created_by``). A
chunk push keeps its own ``created_by`` and adds its mutations to the log, so mutation pullers
and chunk pullers see the same history. Replays are idempotent: a mutation is identified by
``(origin, clock)`` and a chunk by its id.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any

from engram.cloud import chunks
from engram.cloud.auth import Principal
from engram.cloud.problems import CloudProblem, invalid
from engram.cloud.store import mutations, projects
from engram.cloud.store.db import CloudStore, Conn
from engram.cloud.wire import as_entries, parse_entries, stored_mutation
from engram.sync.mutation import Mutation

MAX_PULL = 1000


def _paused(project: str) -> CloudProblem:
    return CloudProblem(
        409, "blocked", "sync-paused", f"sync for project {project!r} is paused by an admin"
    )


def _store_batch(
    conn: Conn,
    project: str,
    after_seq: int,
    batch: Sequence[Mutation],
    *,
    created_by: str,
    principal_id: str | None,
    chunk_id: str,
) -> int:
    return mutations.append(
        conn,
        project,
        after_seq,
        batch,
        created_by=created_by,
        principal_id=principal_id,
        chunk_id=chunk_id,
    )


def push_mutations(
    store: CloudStore, principal: Principal, project: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Append a batch of mutations; returns ``{project, accepted, duplicates, last_seq,
    chunk_id}``. Raises CloudProblem 400 (bad batch) or 409 ``sync-paused``."""
    batch = parse_entries(body.get("entries"))
    label = principal.label
    with store.transaction() as conn:
        locked = mutations.lock_project(conn, project)
        if not locked.sync_enabled:
            projects.record_sync_rejection(
                conn,
                contributor=str(body.get("created_by") or "").strip() or label,
                project=project,
                action="mutation_push",
                entry_count=len(batch),
            )
            rejected = True
        else:
            rejected = False
            fresh = mutations.unknown_mutations(conn, project, batch)
            chunk_ids: list[str] = []
            last = locked.last_seq
            for chunk, group in chunks.encode_by_origin(fresh):
                last = _store_batch(
                    conn,
                    project,
                    last,
                    group,
                    created_by=label,
                    principal_id=principal.id,
                    chunk_id=chunk.id,
                )
                mutations.insert_chunk(
                    conn,
                    project,
                    chunk.id,
                    chunk.data,
                    created_by=label,
                    origin="materialized",
                    mutation_count=len(group),
                )
                chunk_ids.append(chunk.id)
    if rejected:
        raise _paused(project)
    return {
        "project": project,
        "accepted": len(fresh),
        "duplicates": len(batch) - len(fresh),
        "last_seq": last,
        "chunks": chunk_ids,
    }


def pull_mutations(store: CloudStore, project: str, since: int, limit: int) -> dict[str, Any]:
    """Mutations after cursor ``since`` (never gated on pause)."""
    limit = max(1, min(limit, MAX_PULL))
    with store.transaction() as conn:
        rows = mutations.pull(conn, project, since, limit)
        last = mutations.last_seq(conn, project)
    out = as_entries(stored_mutation(r) for r in rows)
    next_since = int(rows[-1]["seq"]) if rows else since
    return {
        "project": project,
        "mutations": out,
        "next_since": next_since,
        "last_seq": last,
        "has_more": next_since < last,
    }


def push_chunk(
    store: CloudStore, principal: Principal, project: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Store a client-built chunk after checking its hash; its mutations join the log."""
    chunk_id = body.get("chunk_id")
    if not isinstance(chunk_id, str) or not chunk_id.strip():
        raise invalid("chunk_id_required", "chunk_id is required")
    created_by = body.get("created_by")
    created_by = (
        created_by.strip()
        if isinstance(created_by, str) and created_by.strip()
        else principal.label
    )
    try:
        content = base64.b64decode(str(body.get("content") or ""), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise invalid("chunk_not_base64", f"chunk {chunk_id} content is not base64") from exc
    try:
        batch = list(chunks.decode(chunk_id, content).mutations)
    except chunks.ChunkRefused as exc:
        raise CloudProblem(400, "repairable", exc.code, str(exc)) from exc
    with store.transaction() as conn:
        locked = mutations.lock_project(conn, project)
        if not locked.sync_enabled:
            projects.record_sync_rejection(
                conn,
                contributor=created_by,
                project=project,
                action="chunk_push",
                entry_count=len(batch),
            )
            paused = True
        else:
            paused = False
            stored = mutations.insert_chunk(
                conn,
                project,
                chunk_id,
                content,
                created_by=created_by,
                origin="push",
                mutation_count=len(batch),
            )
            fresh = mutations.unknown_mutations(conn, project, batch) if stored else []
            last = _store_batch(
                conn,
                project,
                locked.last_seq,
                fresh,
                created_by=created_by,
                principal_id=principal.id,
                chunk_id=chunk_id,
            )
    if paused:
        raise _paused(project)
    return {
        "project": project,
        "chunk_id": chunk_id,
        "status": "stored" if stored else "already_present",
        "accepted": len(fresh),
        "last_seq": last,
    }


def list_chunks(store: CloudStore, project: str) -> dict[str, Any]:
    """The project's chunk manifest (never gated on pause)."""
    with store.transaction() as conn:
        rows = mutations.list_chunks(conn, project)
    return {
        "project": project,
        "chunks": [
            {
                "chunk_id": r["chunk_id"],
                "created_by": r["created_by"],
                "origin": r["origin"],
                "mutation_count": r["mutation_count"],
                "byte_size": r["byte_size"],
                "created_at": r["created_at"].isoformat(),
            }
            for r in rows
        ],
    }


def get_chunk(store: CloudStore, project: str, chunk_id: str) -> dict[str, Any]:
    """One chunk's bytes (base64) and metadata. Raises CloudProblem 404."""
    with store.transaction() as conn:
        row = mutations.get_chunk(conn, project, chunk_id)
    if row is None:
        raise CloudProblem(404, "invalid_request", "chunk_not_found", f"no chunk {chunk_id}")
    return {
        "project": project,
        "chunk_id": row["chunk_id"],
        "created_by": row["created_by"],
        "origin": row["origin"],
        "mutation_count": row["mutation_count"],
        "content": base64.b64encode(row["content"]).decode("ascii"),
    }
