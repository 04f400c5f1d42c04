"""A mutation push validated slice by slice while Postgres inserts the slice before.

The checked push (:func:`engram.cloud.replication.push_mutations`) validates the whole batch,
then writes it: the server's CPU and Postgres's take turns. Here the project's row is locked
first, and one ``COPY`` stays open while each slice of :data:`SLICE` entries is validated,
serialized and chunked, then written: Postgres inserts slice N while Python prepares slice
N+1. Only batches of more than one slice stream. A mutation the log holds already ends the
``COPY`` on the log's unique key ``(project, origin, clock)``; the checked push then counts
the duplicates (a replay costs two passes, a first send none). Each slice's mutations form their own chunks (one per origin), so every row names its
chunk when it is written. The first and the last slice are small (:data:`EDGE`): Postgres
starts sooner, and the insert nothing overlaps at the end is short.

A project's first push streams too: the look-alike check runs first (a name it would refuse
is left to the checked push), then the project's row is created and locked.

Anything the checked push would refuse (a malformed entry, another project's entry, a paused
project, a look-alike name) stops the stream: everything it wrote, the project's new row
included, is rolled back to the savepoint it ran under, and the checked push decides instead,
so refusals keep their order, their codes and their audit rows, and nothing else is stored.
"""

from __future__ import annotations

import itertools
from typing import Any

import psycopg

from engram.cloud import chunks
from engram.cloud.auth import Principal
from engram.cloud.new_projects import require_not_a_variant
from engram.cloud.problems import CloudProblem
from engram.cloud.store import mutations
from engram.cloud.store.db import Conn
from engram.cloud.wire import parse_entry
from engram.sync import json_body
from engram.sync.mutation import Mutation, canonical_text
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


class _LeftToTheCheckedPush(Exception):
    """The stream stops: the checked push decides (raised inside the stream's savepoint)."""


def push_streamed(
    conn: Conn, principal: Principal, project: str, entries: list[Any]
) -> dict[str, Any] | None:
    """Store the batch ``entries`` (decoded objects, or each one's JSON text) and return the
    push's answer; None, with nothing stored, when the checked push must decide: a batch of
    one slice or less, one it would refuse, or one holding a mutation the log stores already
    (its unique key ends the ``COPY``; the checked push counts the duplicates)."""
    if len(entries) <= SLICE:
        return None
    try:
        with conn.transaction():  # a savepoint: a stream given up leaves nothing behind
            return _stream(conn, principal, project, entries)
    except (_LeftToTheCheckedPush, psycopg.errors.UniqueViolation):
        return None


def _locked(conn: Conn, project: str) -> mutations.LockedProject:
    """The project's row, locked (created first when new and no look-alike of another)."""
    locked = mutations.lock_existing_project(conn, project)
    if locked is None:
        try:
            require_not_a_variant(conn, project)
        except CloudProblem:
            raise _LeftToTheCheckedPush from None
        locked = mutations.lock_project(conn, project)
    if not locked.sync_enabled:
        raise _LeftToTheCheckedPush
    return locked


def _stream(conn: Conn, principal: Principal, project: str, entries: list[Any]) -> dict[str, Any]:
    locked = _locked(conn, project)
    known: set[tuple[str, int]] = set()  # a repeat within the batch is kept once
    gate = TrustGate.for_projects({project}, "push")
    stored: list[chunks.OriginChunk] = []
    with mutations.appending(
        conn, project, locked.last_seq, created_by=principal.label, principal_id=principal.id
    ) as log:
        for piece in slices(len(entries)):
            fresh = _fresh_slice(entries, piece, gate, known)
            if fresh is None:
                raise _LeftToTheCheckedPush
            for group in chunks.chunks_by_origin(*fresh):
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
) -> tuple[list[Mutation], list[str | None]] | None:
    """The validated mutations of the ``piece`` of ``entries`` not ``known`` (the first of
    each id), and the canonical line each came as (entries still JSON text: see
    :func:`canonical_text`); None at the first entry the checked push would refuse."""
    loads = json_body.fast_loads() or json_body.loads
    fresh, texts = [], []
    for index in piece:
        entry, text = entries[index], None
        try:
            if type(entry) is bytes:
                line, entry = entry, loads(entry)
                text = canonical_text(entry, line) if type(entry) is dict else None
                if text is None and json_body.may_hold_long_integer(line):
                    return None  # orjson may have rounded an integer: json decides
            mutation = parse_entry(entry, index)
        except (CloudProblem, ValueError, RecursionError):
            return None
        if gate.refusal(mutation) is not None:
            return None
        key = (mutation.origin, mutation.seq)
        if key not in known:
            known.add(key)
            fresh.append(mutation)
            texts.append(text)
    return fresh, texts
