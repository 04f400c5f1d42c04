"""A mutation push validated slice by slice while Postgres inserts the slice before.

The checked push (:func:`engram.cloud.replication.push_mutations`) validates the whole batch,
then writes it: the server's CPU and Postgres's take turns. Here, for a project that exists,
its row is locked first, the batch's ids are looked up, and one ``COPY`` stays open while each
slice of :data:`SLICE` entries is validated, serialized and chunked, then written: Postgres
inserts slice N while Python prepares slice N+1. Only batches of more than one slice come
here. Each slice's mutations form their own chunks (one per origin), so every row names its
chunk when it is written. The first and the last slice are small (:data:`EDGE`): Postgres
starts sooner, and the insert nothing overlaps at the end is short.

Anything the checked push would refuse (a malformed entry, another project's entry, a paused
project) stops the stream: the rows it wrote are deleted in the same transaction and the
checked push decides instead, so refusals keep their order, their codes and their audit rows,
and nothing else is stored. A project's first push (its row, the look-alike check) is always
the checked one.
"""

from __future__ import annotations

import itertools
from typing import Any

from engram.cloud import chunks
from engram.cloud.auth import Principal
from engram.cloud.problems import CloudProblem
from engram.cloud.store import mutations
from engram.cloud.store.db import Conn
from engram.cloud.wire import parse_entry
from engram.sync.mutation import Mutation
from engram.sync.trust import TrustGate

# Entries per slice: a batch of one slice is not streamed (the project's lock would be held
# through its validation for no overlap; pushes to one project from many clients wait on
# that lock), and each slice is a chunk of its own (per origin).
SLICE = 500
# The first and the last slice of a streamed batch are this small: nothing overlaps the first
# one's validation (Postgres waits for it) nor the insert of the last one (Python waits for
# it). The slices between double up to SLICE: each is ready when Postgres ends the one before.
EDGE = 125


def slices(count: int) -> list[range]:
    """The slices a streamed batch of ``count`` entries (more than :data:`SLICE`) is taken in:
    :data:`EDGE` entries, then twice as many each time up to :data:`SLICE`, :data:`EDGE`
    entries last (a remainder smaller than :data:`EDGE` joins the slice before it)."""
    sizes, left, size = [], count - EDGE, EDGE
    while left > 0:
        sizes.append(min(size, left))
        left -= sizes[-1]
        size = min(2 * size, SLICE)
    if len(sizes) > 1 and sizes[-1] < EDGE:
        remainder = sizes.pop()
        sizes[-1] += remainder
    bounds = [0, *itertools.accumulate(sizes), count]
    return [range(low, high) for low, high in itertools.pairwise(bounds)]


def push_streamed(
    conn: Conn, principal: Principal, project: str, entries: list[Any], ids: list[tuple[str, int]]
) -> dict[str, Any] | None:
    """Store the batch ``entries`` (``ids``: their ``(origin, seq)``, read beforehand) and
    return the push's answer; None, with nothing stored, when the checked push must decide."""
    locked = mutations.lock_existing_project(conn, project)
    if locked is None or not locked.sync_enabled:
        return None
    known = mutations.known_ids(conn, project, ids)
    gate = TrustGate.for_projects({project}, "push")
    stored: list[chunks.OriginChunk] = []
    with mutations.appending(
        conn, project, locked.last_seq, created_by=principal.label, principal_id=principal.id
    ) as log:
        for piece in slices(len(entries)):
            fresh = _fresh_slice(entries, piece, gate, known)
            if fresh is None:
                log.discarded = True
                return None
            for group in chunks.chunks_by_origin(fresh):
                log.write(group.mutations, group.payloads, group.chunk.id)
                stored.append(group)
    for group in stored:
        store_chunk(conn, project, group, principal)
    accepted = sum(len(group.mutations) for group in stored)
    return {
        "project": project,
        "accepted": accepted,
        "duplicates": len(entries) - accepted,
        "last_seq": log.last_seq,
        "chunks": [group.chunk.id for group in stored],
    }


def store_chunk(conn: Conn, project: str, group: chunks.OriginChunk, principal: Principal) -> None:
    """Keep ``group``'s chunk (its mutations are in the log), attributed to ``principal``."""
    mutations.insert_chunk(
        conn,
        project,
        group.chunk.id,
        group.chunk.data,
        created_by=principal.label,
        origin="materialized",
        mutation_count=len(group.mutations),
    )


def _fresh_slice(
    entries: list[Any], piece: range, gate: TrustGate, known: set[tuple[str, int]]
) -> list[Mutation] | None:
    """The validated mutations of the ``piece`` of ``entries`` not stored yet (the first of
    each id); None at the first entry the checked push would refuse."""
    fresh = []
    for index in piece:
        try:
            mutation = parse_entry(entries[index], index)
        except CloudProblem:
            return None
        if gate.refusal(mutation) is not None:
            return None
        key = (mutation.origin, mutation.seq)
        if key not in known:
            known.add(key)
            fresh.append(mutation)
    return fresh
