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
from engram.sync.trust import TrustGate

MAX_PULL = 1000


def _only_own_project(project: str, batch: Sequence[Mutation], what: str) -> None:
    """Refuse (403 ``policy_forbidden``) a push holding any mutation of another project: a
    grant for one project never writes another."""
    refused = TrustGate.for_projects({project}, "push").first_refused(batch)
    if refused is not None:
        index, why = refused
        raise CloudProblem(
            403,
            "policy",
            "policy_forbidden",
            f"{what} entry {index} refused: {why}; a push to {project!r} may only carry"
            f" {project!r} mutations, nothing was stored",
        )


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


def _materialize(
    conn: Conn, project: str, after_seq: int, fresh: list[Mutation], principal: Principal
) -> tuple[int, list[str]]:
    """Append ``fresh`` and store one chunk per origin attributed to ``principal``."""
    last, chunk_ids = after_seq, []
    for chunk, group in chunks.encode_by_origin(fresh):
        last = _store_batch(
            conn,
            project,
            last,
            group,
            created_by=principal.label,
            principal_id=principal.id,
            chunk_id=chunk.id,
        )
        mutations.insert_chunk(
            conn,
            project,
            chunk.id,
            chunk.data,
            created_by=principal.label,
            origin="materialized",
            mutation_count=len(group),
        )
        chunk_ids.append(chunk.id)
    return last, chunk_ids


def push_mutations(
    store: CloudStore, principal: Principal, project: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Append a batch of mutations; returns ``{project, accepted, duplicates, last_seq,
    chunks}``. Raises CloudProblem 400 (bad batch) or 409 ``sync-paused``."""
    batch = parse_entries(body.get("entries"))
    _only_own_project(project, batch, "batch")
    with store.transaction() as conn:
        locked = mutations.lock_project(conn, project)
        if not locked.sync_enabled:
            projects.record_sync_rejection(
                conn,
                contributor=str(body.get("created_by") or "").strip() or principal.label,
                project=project,
                action="mutation_push",
                entry_count=len(batch),
            )
        else:
            fresh = mutations.unknown_mutations(conn, project, batch)
            last, chunk_ids = _materialize(conn, project, locked.last_seq, fresh, principal)
    if not locked.sync_enabled:
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


def _read_chunk_body(body: dict[str, Any], fallback: str) -> tuple[str, str, bytes, list[Mutation]]:
    """``(chunk_id, created_by, content, mutations)`` of a chunk push, verified."""
    chunk_id = body.get("chunk_id")
    if not isinstance(chunk_id, str) or not chunk_id.strip():
        raise invalid("chunk_id_required", "chunk_id is required")
    created_by = body.get("created_by")
    if not isinstance(created_by, str) or not created_by.strip():
        created_by = fallback
    try:
        content = base64.b64decode(str(body.get("content") or ""), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise invalid("chunk_not_base64", f"chunk {chunk_id} content is not base64") from exc
    try:
        batch = list(chunks.decode(chunk_id, content).mutations)
    except chunks.ChunkRefused as exc:
        if exc.code == "payload_too_large":
            raise CloudProblem(413, "invalid_request", exc.code, str(exc)) from exc
        raise CloudProblem(400, "repairable", exc.code, str(exc)) from exc
    return chunk_id, created_by.strip(), content, batch


def push_chunk(
    store: CloudStore, principal: Principal, project: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Store a client-built chunk after checking its hash; its mutations join the log (the
    chunk keeps its own ``created_by``)."""
    chunk_id, created_by, content, batch = _read_chunk_body(body, principal.label)
    _only_own_project(project, batch, f"chunk {chunk_id}")
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
        else:
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
    if not locked.sync_enabled:
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
