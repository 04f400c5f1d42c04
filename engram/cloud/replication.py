"""Replication operations: push and pull mutations and chunks, with pause controls.

Every accepted mutation push is also materialized into a chunk attributed to the authenticated
principal (display name, else id, else ``unknown`` — never the envelope's ``created_by``). A
chunk push is attributed to the principal too; the ``created_by`` it claims is kept apart as
``claimed_by``. Its mutations join the log, so mutation pullers and chunk pullers see the same
history. Every audit row names the principal that sent the request. A push may only carry
mutations of its own project (403 ``policy_forbidden`` otherwise, nothing stored). Replays are idempotent: a mutation is identified by
``(origin, clock)`` and a chunk by its id.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engram.cloud import chunks
from engram.cloud.auth import Principal
from engram.cloud.new_projects import lock_pushed_project
from engram.cloud.problems import CloudProblem, invalid
from engram.cloud.push_arrival import ArrivingPush
from engram.cloud.push_stream import SmallBatch, push_streamed, store_chunks
from engram.cloud.store import mutations, projects
from engram.cloud.store.db import Conn
from engram.cloud.wire import json_object, parse_entries
from engram.sync.mutation import Mutation
from engram.sync.trust import TrustGate

# The most mutations one pull page holds, and the most payload bytes: a page of big memories
# stops early (``has_more``) and stays well inside what a client reads
# (engram.sync.cloud.client.MAX_RESPONSE_BYTES).
MAX_PULL = 1000
MAX_PULL_BYTES = 8 * 1024 * 1024


def _only_own_project(
    conn: Conn,
    principal: Principal,
    project: str,
    batch: Sequence[Mutation],
    *,
    action: str,
    claimed_by: str | None,
) -> None:
    """Refuse (403 ``policy_forbidden``, audited) a push holding any mutation of another
    project: a grant for one project never writes another."""
    refused = TrustGate.for_projects({project}, "push").first_refused(batch)
    if refused is not None:
        index, why = refused
        what = "batch" if action == "mutation_push" else "chunk"
        _record_refusal(
            conn, principal, project, action, claimed_by, len(batch),
            outcome="rejected_foreign_project", reason_code="policy_forbidden",
        )  # fmt: skip
        raise CloudProblem(
            403,
            "policy",
            "policy_forbidden",
            f"{what} entry {index} refused: {why}; a push to {project!r} may only carry"
            f" {project!r} mutations, nothing was stored",
        )


def _record_refusal(
    conn: Conn,
    principal: Principal,
    project: str,
    action: str,
    claimed_by: str | None,
    entry_count: int,
    **why: str,
) -> None:
    """One ``cloud_sync_audit_log`` row for a refused push by ``principal`` (``why``: the
    outcome and reason code; a paused project's by default)."""
    projects.record_sync_rejection(
        conn,
        contributor=principal.label,
        principal_id=principal.id,
        claimed_by=claimed_by,
        project=project,
        action=action,
        entry_count=entry_count,
        **why,
    )


def _lock_for_push(
    conn: Conn,
    principal: Principal,
    project: str,
    *,
    action: str,
    claimed_by: str | None,
    entry_count: int,
) -> mutations.LockedProject:
    """The project's row, locked for this push (a new one after the variant check); a paused
    project's refusal is recorded and raised (409 ``sync-paused``)."""
    locked = lock_pushed_project(conn, project)
    if not locked.sync_enabled:
        _record_refusal(conn, principal, project, action, claimed_by, entry_count)
        raise CloudProblem(
            409, "blocked", "sync-paused", f"sync for project {project!r} is paused by an admin"
        )
    return locked


def _store_batch(
    conn: Conn,
    project: str,
    after_seq: int,
    batch: Sequence[Mutation],
    *,
    created_by: str,
    principal_id: str | None,
    chunk_id: str,
    payloads: Sequence[str] | None = None,
) -> int:
    return mutations.append(
        conn,
        project,
        after_seq,
        batch,
        created_by=created_by,
        principal_id=principal_id,
        chunk_id=chunk_id,
        payloads=payloads,
    )


def _materialize(
    conn: Conn,
    project: str,
    after_seq: int,
    groups: list[chunks.OriginChunk],
    principal: Principal,
) -> tuple[int, list[str]]:
    """Append the mutations of ``groups`` and store each chunk attributed to ``principal``."""
    last, chunk_ids = after_seq, []
    for group in groups:
        last = _store_batch(
            conn,
            project,
            last,
            group.mutations,
            created_by=principal.label,
            principal_id=principal.id,
            chunk_id=group.id,
            payloads=group.payloads,
        )
        chunk_ids.append(group.id)
    store_chunks(conn, project, ((g.id, g.gzipped, len(g.mutations)) for g in groups), principal)
    return last, chunk_ids


def push_mutations(
    conn: Conn, principal: Principal, project: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Append a batch of mutations; returns ``{project, accepted, duplicates, last_seq,
    chunks}``. Raises CloudProblem 400 (bad batch), 403 (another project's entries, recorded)
    or 409 ``sync-paused`` (recorded) before it writes anything else.

    The entries are validated slice by slice, and a batch of more than
    :data:`~engram.cloud.push_stream.STREAMED_ABOVE` entries is streamed into the log
    (:mod:`engram.cloud.push_stream`); the checked push below stores the others (a smaller
    batch would only hold the project's lock longer: nothing overlaps) and decides whatever
    the stream leaves to it."""
    entries: Any = body.get("entries")
    if type(entries) is list:
        streamed = push_streamed(conn, principal, project, entries)
        if streamed is not None:
            return _stored(conn, principal, project, streamed, _claimed_by(body))
    return _push_checked(conn, principal, project, body)


def push_arriving(
    conn: Conn, principal: Principal, project: str, body: ArrivingPush
) -> dict[str, Any]:
    """:func:`push_mutations` of a body in the one-entry-per-line layout, its entries validated
    and stored as they arrive (:mod:`engram.cloud.push_arrival`); the checked push reads it
    whole when the stream gives up. Raises the body's problem (408, 413, 400) with nothing
    stored."""
    streamed = push_streamed(conn, principal, project, body.entries())
    if streamed is not None:
        return _stored(conn, principal, project, streamed, None)
    return _push_checked(conn, principal, project, json_object(body.whole()))


def _stored(
    conn: Conn,
    principal: Principal,
    project: str,
    streamed: dict[str, Any] | SmallBatch,
    claimed: str | None,
) -> dict[str, Any]:
    """The answer of a streamed push, or of a small batch stored by the checked push."""
    if isinstance(streamed, SmallBatch):
        return _store_checked(
            conn, principal, project, streamed.mutations, streamed.texts, claimed,
            entry_count=streamed.entry_count,
        )  # fmt: skip
    return streamed


def _push_checked(
    conn: Conn, principal: Principal, project: str, body: dict[str, Any]
) -> dict[str, Any]:
    """The whole batch validated, then written (:func:`push_mutations`)."""
    batch = parse_entries(body.get("entries"))
    claimed = _claimed_by(body)
    _only_own_project(conn, principal, project, batch, action="mutation_push", claimed_by=claimed)
    return _store_checked(conn, principal, project, batch, None, claimed, entry_count=len(batch))


def _store_checked(
    conn: Conn,
    principal: Principal,
    project: str,
    batch: list[Mutation],
    texts: list[str | None] | None,
    claimed: str | None,
    *,
    entry_count: int,
) -> dict[str, Any]:
    """Store a validated ``batch`` of the project's own mutations (``texts``: the canonical
    line each came as, when known) that came as ``entry_count`` entries."""
    # Serialized and gzipped before the project's lock is taken: pushes to one project wait
    # for each other only while they write. Rebuilt below if some entries were duplicates.
    prepared = chunks.chunks_by_origin(batch, texts)
    locked = _lock_for_push(
        conn, principal, project, action="mutation_push", claimed_by=claimed,
        entry_count=entry_count,
    )  # fmt: skip
    fresh = mutations.unknown_mutations(conn, project, batch)
    groups = prepared if len(fresh) == len(batch) else chunks.chunks_by_origin(fresh)
    last, chunk_ids = _materialize(conn, project, locked.last_seq, groups, principal)
    return {
        "project": project,
        "accepted": len(fresh),
        "duplicates": entry_count - len(fresh),
        "last_seq": last,
        "chunks": chunk_ids,
    }


@dataclass(frozen=True, slots=True)
class PulledAnswer:
    """A pull page's JSON text (UTF-8) and where the next page starts (``has_more``: there
    is one), which the route also sends as headers
    (:func:`engram.sync.cloud.pull_ahead.page_headers`)."""

    body: bytes
    next_since: int
    has_more: bool


def pull_mutations(conn: Conn, project: str, since: int, limit: int) -> PulledAnswer:
    """Mutations after cursor ``since`` (never gated on pause), as the JSON text (UTF-8) of
    ``{project, mutations, next_since, last_seq, has_more}``."""
    limit = max(1, min(limit, MAX_PULL))
    page = mutations.pull_page(conn, project, since, limit, MAX_PULL_BYTES)
    next_since = page.last_in_page if page.last_in_page is not None else since
    has_more = next_since < page.last_seq
    head = json.dumps({"project": project}, ensure_ascii=False)[:-1]
    tail = (
        f',"next_since":{next_since},"last_seq":{page.last_seq},'
        f'"has_more":{"true" if has_more else "false"}}}'
    )
    body = b"".join((f'{head},"mutations":'.encode(), page.entries, tail.encode()))
    return PulledAnswer(body, next_since, has_more)


def _claimed_by(body: dict[str, Any]) -> str | None:
    """The ``created_by`` a push claims (a label only, at most 256 characters), or None."""
    claimed = body.get("created_by")
    if not isinstance(claimed, str) or not claimed.strip():
        return None
    return "".join(c for c in claimed.strip() if c.isprintable())[:256] or None


def _read_chunk_body(body: dict[str, Any]) -> tuple[str, bytes, list[Mutation]]:
    """``(chunk_id, content, mutations)`` of a chunk push, verified."""
    chunk_id = body.get("chunk_id")
    if not isinstance(chunk_id, str) or not chunk_id.strip():
        raise invalid("chunk_id_required", "chunk_id is required")
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
    return chunk_id, content, batch


def push_chunk(
    conn: Conn, principal: Principal, project: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Store a client-built chunk after checking its hash; its mutations join the log. It is
    attributed to ``principal``; the ``created_by`` it claims is kept as ``claimed_by``.
    Refusals (CloudProblem) come before anything but their audit rows is written."""
    chunk_id, content, batch = _read_chunk_body(body)
    claimed = _claimed_by(body)
    created_by = principal.label
    _only_own_project(conn, principal, project, batch, action="chunk_push", claimed_by=claimed)
    locked = _lock_for_push(
        conn, principal, project, action="chunk_push", claimed_by=claimed, entry_count=len(batch)
    )
    stored = mutations.insert_chunk(
        conn,
        project,
        chunk_id,
        content,
        created_by=created_by,
        origin="push",
        mutation_count=len(batch),
        claimed_by=claimed,
        principal_id=principal.id,
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
    return {
        "project": project,
        "chunk_id": chunk_id,
        "status": "stored" if stored else "already_present",
        "accepted": len(fresh),
        "last_seq": last,
    }


def list_chunks(conn: Conn, project: str) -> dict[str, Any]:
    """The project's chunk manifest (never gated on pause)."""
    rows = mutations.list_chunks(conn, project)
    return {
        "project": project,
        "chunks": [
            {
                "chunk_id": r["chunk_id"],
                "created_by": r["created_by"],
                "claimed_by": r["claimed_by"],
                "origin": r["origin"],
                "mutation_count": r["mutation_count"],
                "byte_size": r["byte_size"],
                "created_at": r["created_at"].isoformat(),
            }
            for r in rows
        ],
    }


def get_chunk(conn: Conn, project: str, chunk_id: str) -> dict[str, Any]:
    """One chunk's bytes (base64) and metadata. Raises CloudProblem 404."""
    row = mutations.get_chunk(conn, project, chunk_id)
    if row is None:
        raise CloudProblem(404, "invalid_request", "chunk_not_found", f"no chunk {chunk_id}")
    return {
        "project": project,
        "chunk_id": row["chunk_id"],
        "created_by": row["created_by"],
        "claimed_by": row["claimed_by"],
        "origin": row["origin"],
        "mutation_count": row["mutation_count"],
        "content": base64.b64encode(row["content"]).decode("ascii"),
    }
