"""A mutation push validated as it arrives and written slice by slice while Postgres inserts
the slice before.

The checked push (:func:`engram.cloud.replication.push_mutations`) validates the whole batch,
then writes it: the server's CPU and Postgres's take turns. Here each entry is validated as
soon as it has arrived (while the push's thread would otherwise wait for the next), the
project's row is locked once the batch is known to hold more than :data:`STREAMED_ABOVE`
entries (only those stream), and one ``COPY`` stays open while each slice of :data:`SLICE`
entries is chunked, then written: Postgres inserts slice N while Python prepares slice N+1.
The lock is taken while the rest of the first slice arrives. A mutation the log holds
already ends the ``COPY`` on the log's unique key ``(project, origin, clock)``; the checked
push then counts the duplicates (a replay costs two passes, a first send none). Each slice's
mutations form their own chunks (one per origin), so every row names its chunk when it is
written; the chunks are stored together once the ``COPY`` ends.

Slices are all of one small size, the last smaller still: preparing an entry costs Python
about as much as inserting it costs Postgres (20 and 15 us here), so a slice is ready about
when Postgres has inserted the one before, and what Postgres still has to insert when the last
slice is written is the small last slice (docs/performance.md, "Push: slices of one size").

What a push parsed (~20 objects an entry) is freed by a thread of its own, one slice at a
time, while the push waits for Postgres to end the ``COPY``, store the chunks and commit
(:func:`release_later`): freed on the push's own thread it held the answer back ~1 ms per
1,000 entries.

A project's first push streams too: its row is created with the look-alike check's read, in
one round trip, and a name the check would refuse is rolled back and left to the checked push.

Anything the checked push would refuse (a malformed entry, another project's entry, a paused
project, a look-alike name) stops the stream: everything it wrote, the project's new row
included, is rolled back to the savepoint it ran under, and the checked push decides instead,
so refusals keep their order, their codes and their audit rows, and nothing else is stored.
"""

from __future__ import annotations

import contextlib
import functools
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import psycopg

from engram.cloud import chunks
from engram.cloud.auth import Principal
from engram.cloud.new_projects import create_pushed_project
from engram.cloud.push_arrival import NotFramed
from engram.cloud.store import mutations
from engram.cloud.store.db import Conn, send_with_commit
from engram.sync import json_body
from engram.sync.mutation import Mutation, parse_line, parse_mutation
from engram.sync.trust import TrustGate

T = TypeVar("T")

# Entries per slice, each a chunk of its own (per origin). Slices that grew 125, 250, 500 left
# Postgres a 500-row backlog when the last was written (a 1,000-row first push: COPY ended 10 ms
# after the last slice; with 125 throughout, 2 ms).
SLICE = 125
# The last slice is smaller: what Postgres still has to insert when it is written is what the
# push waits for before it can end the COPY (a last slice of 125: 2.8 ms; of 32: 1.8 ms).
LAST_SLICE = 32
# Batches of more entries than this stream: the project is locked once this many and one more
# have arrived and been validated (while the rest of the first slice arrives: slices_of holds
# back what may still be the tail). Smaller ones are stored by the checked push (the project's
# lock would be held through their validation for little overlap; pushes to one project from
# many clients wait on that lock).
STREAMED_ABOVE = SLICE
# Threads gzipping the chunks of streamed pushes (each slice's in ~0.3 ms, beside the ~2 ms its
# validation takes): two keep up with two pushes at once.
GZIP_THREADS = 2


def slices(count: int) -> list[range]:
    """The slices a streamed batch of ``count`` entries is taken in (see :func:`slices_of`)."""
    ranges, low = [], 0
    for taken in slices_of(iter(range(count))):
        ranges.append(range(low, low + len(taken)))
        low += len(taken)
    return ranges


def slices_of(entries: Iterator[T]) -> Iterator[list[T]]:
    """``entries`` in the slices a streamed push takes them in, each as soon as it is known
    to be one: :data:`SLICE` entries each, but the last :data:`LAST_SLICE`, which are a slice
    of their own; a remainder of less than half a slice joins the slice before it (no chunk of
    a few rows), and a batch of fewer than that and the last slice together is one slice."""
    ahead = SLICE + LAST_SLICE + SLICE // 2  # held back until it is sure not to be the tail
    held: list[T] = []
    for entry in entries:
        held.append(entry)
        if len(held) == ahead:
            yield held[:SLICE]
            del held[:SLICE]
    if len(held) < LAST_SLICE + SLICE // 2:
        if held:
            yield held
        return
    yield held[:-LAST_SLICE]
    yield held[-LAST_SLICE:]


@functools.cache
def _gzipper() -> ThreadPoolExecutor:
    """The threads that gzip a streamed push's chunks while its next slice is prepared and
    Postgres inserts the last (zlib lets go of the GIL): shared by every push of the process,
    made at the first."""
    return ThreadPoolExecutor(GZIP_THREADS, thread_name_prefix="engram-chunk-gzip")


class _LeftToTheCheckedPush(Exception):
    """The stream stops: the checked push decides (raised inside the stream's savepoint)."""


@dataclass(frozen=True, slots=True)
class SmallBatch:
    """A batch of :data:`STREAMED_ABOVE` entries or fewer, validated as it arrived: the
    checked push stores it (its mutations, the first of each id, and the canonical line each
    came as) without reading it again."""

    mutations: list[Mutation]
    texts: list[str | None]
    entry_count: int


def push_streamed(
    conn: Conn, principal: Principal, project: str, entries: Iterable[Any]
) -> dict[str, Any] | SmallBatch | None:
    """Store the batch ``entries`` (decoded objects, or each one's JSON text, taken as they
    come: see :mod:`engram.cloud.push_arrival`) and return the push's answer. Entries are
    validated as they arrive, the first :data:`STREAMED_ABOVE` and one more before the project
    is locked. A batch of :data:`STREAMED_ABOVE` entries or fewer comes back validated
    (:class:`SmallBatch`) for the checked push to store. None, with nothing stored, when the
    checked push must read the body again and decide: an entry it would refuse, a body that
    stops being in the one-entry-per-line layout, or a mutation the log stores already (its
    unique key ends the ``COPY``; the checked push counts the duplicates). A problem of the
    body itself (it stalls, grows too large, is cut off) is raised, with nothing stored."""
    batch = _Arriving(project, entries)
    try:
        if not batch.more_than(STREAMED_ABOVE):
            if not batch.ahead:
                return None  # no entries: the checked push refuses the empty batch
            return SmallBatch(*_fresh(batch.ahead, set()), len(batch.ahead))
        return _stream(conn, principal, project, batch)
    except (_LeftToTheCheckedPush, NotFramed, psycopg.errors.UniqueViolation):
        return None


Checked = tuple[Mutation, str | None]
Validated = tuple[list[Mutation], list[str | None]]


class _Arriving:
    """A batch's entries, each validated as it arrives (:func:`_checked`), while the push's
    thread would otherwise wait for the next: the first are read ahead (:meth:`more_than`),
    then all of them are taken slice by slice (:func:`slices_of`), the repeats within the
    batch left out."""

    def __init__(self, project: str, entries: Iterable[Any]) -> None:
        self._checked = _each_checked(iter(entries), TrustGate.for_projects({project}, "push"))
        self.ahead: list[Checked] = []  # read ahead of the slices
        self.taken = 0  # entries taken in slices

    def more_than(self, count: int) -> bool:
        """Read entries ahead until more than ``count`` have arrived (True), or all of them
        have (False: :attr:`ahead` holds the batch)."""
        for checked in self._checked:
            self.ahead.append(checked)
            if len(self.ahead) > count:
                return True
        return False

    def __iter__(self) -> Iterator[Validated]:
        known: set[tuple[str, int]] = set()
        for piece in slices_of(self._arrived()):
            self.taken += len(piece)
            yield _fresh(piece, known)

    def _arrived(self) -> Iterator[Checked]:
        yield from self.ahead
        self.ahead = []  # the slices hold them now
        yield from self._checked


def _each_checked(entries: Iterator[Any], gate: TrustGate) -> Iterator[Checked]:
    loads = json_body.fast_loads() or json_body.loads
    for entry in entries:
        checked = _checked(entry, gate, loads)
        if checked is None:
            raise _LeftToTheCheckedPush
        yield checked


def _fresh(piece: list[Checked], known: set[tuple[str, int]]) -> Validated:
    """The mutations of ``piece`` not ``known`` (the first of each id: a repeat within the
    batch is kept once), and the canonical line each came as."""
    fresh, texts = [], []
    for mutation, text in piece:
        key = (mutation.origin, mutation.seq)
        if key not in known:
            known.add(key)
            fresh.append(mutation)
            texts.append(text)
    return fresh, texts


# The stream runs under a savepoint of its own: given up, it leaves nothing behind. Taken by
# hand (not conn.transaction()) so it travels with the statements around it: one round trip.
_SAVEPOINT = "SAVEPOINT engram_push_stream"
_GIVE_UP = "ROLLBACK TO SAVEPOINT engram_push_stream"
_KEEP = "RELEASE SAVEPOINT engram_push_stream"


def _locked(conn: Conn, project: str) -> mutations.LockedProject:
    """The project's row, locked (created first when new and no look-alike of another), under
    the stream's savepoint (taken in the same round trip as the lock)."""
    with conn.pipeline():
        conn.execute(_SAVEPOINT)
        asked = mutations.send_lock_existing_project(conn, project)
    locked = mutations.locked_by(asked)
    if locked is None:  # a look-alike's row is rolled back with the rest
        locked = create_pushed_project(conn, project)
    if locked is None or not locked.sync_enabled:
        raise _LeftToTheCheckedPush
    return locked


def _stream(conn: Conn, principal: Principal, project: str, batch: _Arriving) -> dict[str, Any]:
    try:
        answer = _stream_under_savepoint(conn, principal, project, batch)
    except BaseException:
        if not conn.broken and not conn.closed:
            with contextlib.suppress(psycopg.Error):  # else the whole transaction goes
                conn.execute(_GIVE_UP)
        raise
    return answer


def _stream_under_savepoint(
    conn: Conn, principal: Principal, project: str, batch: _Arriving
) -> dict[str, Any]:
    locked = _locked(conn, project)
    stored: list[tuple[str, bytes | Future[bytes], int]] = []  # each chunk's id, data, count
    written: list[object] = []  # each slice, validated and chunked: freed by release_later
    with mutations.appending(
        conn, project, locked.last_seq, created_by=principal.label, principal_id=principal.id,
        advance=False,
    ) as log:  # fmt: skip
        written.extend(_write(log, fresh, stored) for fresh in batch)
        release_later(written)  # while the COPY ends, the chunks are stored and it commits
        del written
    # The sequence, the chunks and the savepoint go with the commit: no round trip of their own.
    send_with_commit(conn, functools.partial(_tail, project, log.last_seq, stored, principal))
    accepted = sum(count for _, _, count in stored)
    return {
        "project": project,
        "accepted": accepted,
        "duplicates": batch.taken - accepted,
        "last_seq": log.last_seq,
        "chunks": [chunk_id for chunk_id, _, _ in stored],
    }


def _tail(
    project: str,
    last_seq: int,
    stored: list[tuple[str, bytes | Future[bytes], int]],
    principal: Principal,
    conn: Conn,
) -> None:
    mutations.advance_to(conn, project, last_seq)
    store_chunks(conn, project, stored, principal)
    conn.execute(_KEEP)


def _write(
    log: mutations.LogAppender,
    fresh: Validated,
    stored: list[tuple[str, bytes | Future[bytes], int]],
) -> tuple[Validated, list[chunks.OriginChunk]]:
    """Chunk a validated slice and write it to the log; what it is made of, to be freed."""
    groups = chunks.chunks_by_origin(*fresh, gzip_on=_gzipper())
    for group in groups:
        log.write(group.mutations, group.payloads, group.id)
        stored.append((group.id, group.gzipped, len(group.mutations)))
    return fresh, groups


@functools.cache
def _released() -> queue.SimpleQueue[list[object]]:
    """The queue of :func:`release_later`, and the thread that empties it (made at the
    first streamed push)."""
    dropped: queue.SimpleQueue[list[object]] = queue.SimpleQueue()
    threading.Thread(
        target=_release_forever, args=(dropped,), name="engram-push-release", daemon=True
    ).start()
    return dropped


def _release_forever(dropped: queue.SimpleQueue[list[object]]) -> None:
    while True:
        held = dropped.get()
        while held:
            held.pop()  # one slice's objects are freed here
            time.sleep(0)  # and the GIL goes to whoever waits for it: the push, its answer in
        del held


def release_later(held: list[object]) -> None:
    """Free the objects in ``held`` (a streamed push's validated slices: its mutations, their
    payloads, lines and chunks, ~20 objects an entry, ~1 ms for 1,000) on a thread of its
    own, one slice at a time, while the push waits for Postgres (the ``COPY``'s end, the
    chunks, the commit) instead of before its answer. The caller drops its own references
    at once; what it still holds is freed when it lets go, as before."""
    _released().put(held)


def store_chunks(
    conn: Conn,
    project: str,
    held: Iterable[tuple[str, bytes | Future[bytes], int]],
    principal: Principal,
) -> None:
    """Keep the chunks ``held`` (each one's id, gzipped bytes or their making, mutation
    count; their mutations are in the log), attributed to ``principal``: one pipelined
    statement for all of them."""
    mutations.insert_chunks(
        conn,
        project,
        [(chunk_id, chunks.gzipped_bytes(data), count) for chunk_id, data, count in held],
        created_by=principal.label,
        origin="materialized",
    )


def _checked(entry: Any, gate: TrustGate, loads: Callable[[bytes], Any]) -> Checked | None:
    """The validated mutation of ``entry`` and the canonical line it came as (an entry still
    JSON text: see :func:`~engram.sync.mutation.parse_line`); None when the checked push would
    refuse it (the refusal is the checked push's to word)."""
    try:
        if type(entry) is bytes:
            mutation, text = parse_line(loads(entry), entry)
            if text is None and json_body.may_hold_long_integer(entry):
                return None  # orjson may have rounded an integer: json decides
        else:
            mutation, text = parse_mutation(entry), None
    except (ValueError, RecursionError):
        return None
    if gate.refusal(mutation) is not None:
        return None
    return mutation, text
