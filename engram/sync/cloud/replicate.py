"""Replicating one enrolled project with its remote: push the journal, pull and apply.

Push sends the project's journal rows past the target's cursor in batches (redacted, exactly as
a git chunk would carry them) and moves the cursor after each acknowledged batch. Pull asks for
mutations after the remote cursor and applies each page in one write transaction together with
the new cursor. Network I/O never happens inside a store transaction.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engram.errors import EngramError
from engram.memory.clock import stamp
from engram.store import sync_cloud, sync_journal
from engram.store.db import Store
from engram.sync.apply import ApplyCounts
from engram.sync.cloud import pull_ahead
from engram.sync.cloud.client import (
    PULL_PAGE,
    PUSH_BETWEEN,
    PUSH_TAIL,
    CloudClient,
    CloudSyncError,
    push_body,
    push_head,
)
from engram.sync.cloud.config import Remote
from engram.sync.export import pending_rows, to_mutation
from engram.sync.importer import apply_mutations, retry_deferred
from engram.sync.mutation import Mutation, parse_mutation
from engram.sync.trust import TrustGate

log = logging.getLogger("engram.autosync")

# Rows per push request: each request has a fixed cost (HTTP, admission and audit row, project
# lock, chunk row, commit; ~12 rows' instructions on the server, and a few ms of waiting).
# 20k rows at load ~10, 500 -> 2,000 per batch: CPU 42.3 -> 36.5 us per row, wall 99 -> 66;
# 100k, 2,000 -> 4,000 (4 MiB): wall 2.26 / 2.20 -> 2.09 / 2.07 s. A server that takes less
# (ENGRAM_CLOUD_MAX_PUSH_BYTES under the default 8 MiB) answers 413: the batches halve.
BATCH_MUTATIONS = 4000
BATCH_BYTES = 4 * 1024 * 1024
PROGRESS_EVERY = 10  # pages between two progress lines

# progress(pulled_seq, remote_seq, start_seq): called before the first page is applied, after
# some pages, and once at the end.
Progress = Callable[[int, int, int], None]


def pull_key(target_key: str) -> str:
    """The cursor key of what was pulled from the remote whose push cursor is ``target_key``."""
    return target_key + "#pull"


@dataclass
class ReplicationReport:
    """What one push and/or pull did."""

    pushed: int = 0
    duplicates: int = 0
    pulled: int = 0
    counts: ApplyCounts = field(default_factory=ApplyCounts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pushed": self.pushed,
            "duplicates": self.duplicates,
            "pulled": self.pulled,
            "applied": vars(self.counts).copy(),
        }


def require_enrolled(store: Store, project: str) -> None:
    """Refuse a project that is not enrolled (``blocked_unenrolled``)."""
    with store.locked() as conn:
        if sync_cloud.is_enrolled(conn, project):
            return
    raise EngramError(
        "cloud.blocked_unenrolled",
        f"blocked_unenrolled: project {project!r} is not enrolled for cloud sync",
        f"run engram cloud enroll {project}",
    )


class PushBatch(list[Mutation]):
    """The mutations of one push request, and their :meth:`Mutation.to_json` lines (written
    once: they size the batch and then are the request's entries)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []


def push_batches(mutations: Sequence[Mutation]) -> Iterator[PushBatch]:
    """``mutations`` in the batches a push sends (:class:`PushBody`'s rule), in order, each
    made when it is asked for."""
    start = 0
    while start < len(mutations):
        body = PushBody("", mutations, start)
        body.take()
        yield body.batch
        start += len(body.batch)


# Entries per piece of a push body: the server stores the first while the client makes (and
# sends) the next (each piece is one chunk of a chunked request, ~50 KB of observations).
PIECE_ENTRIES = 64


class PushBody:
    """The body of one push request: the batch of ``mutations`` from ``start`` that
    :func:`push_batches` would make, written piece by piece as it is sent (the server stores
    the first entries while the last are made). The batch is known once the body has been
    iterated (:attr:`batch`); iterating again (a retry) sends the same bytes."""

    def __init__(
        self,
        project: str,
        mutations: Sequence[Mutation],
        start: int = 0,
        *,
        max_entries: int | None = None,
        max_bytes: int | None = None,
    ) -> None:
        self.project = project
        self.batch = PushBatch()
        self._mutations = mutations
        self._start = start
        self._max_entries = max_entries or BATCH_MUTATIONS
        self._max_bytes = max_bytes or BATCH_BYTES
        self._made = False

    def __iter__(self) -> Iterator[bytes]:
        if self._made:
            yield push_body(self.project, self.batch, self.batch.lines)
            return
        try:
            head = push_head(self.project)
        except UnicodeEncodeError:  # only an escape carries it: the whole body at once
            self.take()
            yield push_body(self.project, self.batch, self.batch.lines)
            return
        yield head
        piece: list[bytes] = []
        for line in self._lines():
            piece.append(line)
            if len(piece) == PIECE_ENTRIES:
                yield PUSH_BETWEEN.join(piece) + PUSH_BETWEEN
                piece = []
        yield PUSH_BETWEEN.join(piece) + PUSH_TAIL if piece else PUSH_TAIL

    def take(self) -> None:
        """Make the batch without the body (what :attr:`batch` holds once it is sent)."""
        for _ in self._lines():
            pass

    def _lines(self) -> Iterator[bytes]:
        """Each entry's line, in UTF-8, for the mutations of the batch as it grows: at most
        :data:`BATCH_MUTATIONS` and about :data:`BATCH_BYTES` of lines (unless told less),
        counted in UTF-8 bytes as the body carries them (a larger mutation goes alone; a
        journal in CJK or emoji is 3-4 bytes a character, and the server refuses a body over
        ``ENGRAM_CLOUD_MAX_PUSH_BYTES``, 8 MiB by default)."""
        batch, size, most, most_bytes = self.batch, 0, self._max_entries, self._max_bytes
        batch.clear()  # a send cut off part way left its start here
        batch.lines.clear()
        for index in range(self._start, len(self._mutations)):
            mutation = self._mutations[index]
            text = mutation.to_json()
            try:
                line = text.encode()
            except UnicodeEncodeError:  # a lone surrogate: json's escapes carry it
                line = json.dumps(mutation.to_dict(), separators=(",", ":")).encode()
            if batch and (len(batch) >= most or size + len(line) > most_bytes):
                break
            batch.append(mutation)
            batch.lines.append(text)
            size += len(line)
            yield line
        self._made = True


def send_batches(
    client: CloudClient, project: str, mutations: Sequence[Mutation]
) -> Iterator[tuple[PushBatch, dict[str, Any]]]:
    """Push ``mutations`` in their batches, one request at a time and in order, each with the
    server's answer; each batch is made while it is sent (:class:`PushBody`). A server that
    refuses a batch as too large (413: its ``ENGRAM_CLOUD_MAX_PUSH_BYTES`` is lower than the
    default) gets it again in halves, and halves from then on. Any other failure raises at
    once: nothing after it is sent."""
    start, most, most_bytes = 0, BATCH_MUTATIONS, BATCH_BYTES
    while start < len(mutations):
        body = PushBody(project, mutations, start, max_entries=most, max_bytes=most_bytes)
        try:
            answer = client.push_pieces(body)
        except CloudSyncError as exc:
            if exc.status != 413 or len(body.batch) <= 1:
                raise  # one mutation over the server's limit: nothing smaller to send
            most, most_bytes = max(1, len(body.batch) // 2), max(1024, most_bytes // 2)
            log.debug("[cloud] push of %d refused as too large; sending %d", len(body.batch), most)
            continue
        yield body.batch, answer
        start += len(body.batch)


def _cursors(mutations: Sequence[Mutation], floor: int) -> list[int]:
    """Where the push cursor may move once the first ``i`` mutations are accepted (index
    ``i``): just below the lowest sequence above ``floor`` still to send, or past the last one.
    One pass from the end: a sync reads each mutation once."""
    top = max((m.seq for m in mutations), default=floor)
    after, lowest = [top], None
    for mutation in reversed(mutations):
        if mutation.seq > floor and (lowest is None or mutation.seq < lowest):
            lowest = mutation.seq
        after.append(lowest - 1 if lowest is not None else top)
    return after[::-1]


def push(
    store: Store,
    client: CloudClient,
    project: str,
    report: ReplicationReport,
    *,
    check_access: bool = True,
) -> None:
    """Send the project's pending journal rows; the cursor moves after each accepted batch.
    ``check_access``: with nothing to send, still ask the server once (False when a pull of
    the same project follows, which asks it anyway)."""
    target = client.remote.target_key
    with store.read() as conn:
        rows = pending_rows(conn, project, target)
        origin = sync_journal.device_id(conn)
        floor = sync_journal.cursor(conn, target, project)
    mutations = [to_mutation(origin, row) for row in rows]
    if not mutations and check_access:
        # Nothing to send, but a wrong, revoked or missing token (or a lost grant) must still
        # be an error now, not a silent "pushed 0": one authenticated read (never paused).
        client.pull_mutations(project, floor, 1)
    cursors, sent = _cursors(mutations, floor), 0
    for batch, result in send_batches(client, project, mutations):
        sent += len(batch)
        done = cursors[sent]
        accepted = int(result.get("accepted", 0))
        report.pushed += accepted
        report.duplicates += int(result.get("duplicates", 0))
        with store.write() as conn:
            sync_journal.set_cursor(conn, target, project, done, stamp())
            _skip_own_on_pull(conn, target, project, accepted, result.get("last_seq"))


def _skip_own_on_pull(
    conn: Any, target: str, project: str, accepted: int, last_seq: object
) -> None:
    """Move the pull cursor past a batch the server numbered right after it: those remote
    mutations are our own, so nothing is left to pull (and status does not count them)."""
    if not accepted or not isinstance(last_seq, int) or isinstance(last_seq, bool):
        return
    key = pull_key(target)
    if sync_journal.cursor(conn, key, project) == last_seq - accepted:
        sync_journal.set_cursor(conn, key, project, last_seq, stamp())


def pull(
    store: Store,
    client: CloudClient,
    project: str,
    report: ReplicationReport,
    progress: Progress | None = None,
) -> None:
    """Fetch and apply every remote mutation after the pull cursor, page by page; only
    ``project``'s own mutations are applied (others count as ``refused``)."""
    gate = TrustGate.for_projects({project}, "cloud")
    key = pull_key(client.remote.target_key)
    with store.locked() as conn:
        since = sync_journal.cursor(conn, key, project)
    start, pages = since, 0
    for page in pull_ahead.pages(client, project, since, PULL_PAGE):
        entries = page.get("mutations", [])
        mutations = [_parse(entry) for entry in entries]
        authors = _authors(entries, mutations)
        next_since = int(page.get("next_since", since))
        now = stamp()
        with store.write() as conn:
            apply_mutations(
                conn,
                mutations,
                report.counts,
                target_key=client.remote.target_key,
                now=now,
                gate=gate,
                authors=authors,
            )
            sync_journal.set_cursor(conn, key, project, next_since, now)
        last = int(page.get("last_seq", next_since))
        if progress is not None and pages == 0:
            progress(since, last, start)
        report.pulled += len(mutations)
        since, pages = next_since, pages + 1
        done = not page.get("has_more") or not mutations  # the last page pages() yields
        if progress is not None and (done or pages % PROGRESS_EVERY == 0):
            progress(since, max(last, since), start)
    retry_deferred(store)


def _authors(entries: list[Any], mutations: list[Mutation]) -> dict[tuple[str, int], str]:
    """``(origin, seq) -> principal`` from the server's ``created_by`` on each entry (shown
    one-line, at most 64 characters; the device is named when the server gave none)."""
    found: dict[tuple[str, int], str] = {}
    for entry, mutation in zip(entries, mutations, strict=True):
        label = entry.get("created_by") if isinstance(entry, dict) else None
        if isinstance(label, str) and label.strip():
            clean = "".join(c for c in label.strip() if c.isprintable())[:64]
            if clean:
                found[(mutation.origin, mutation.seq)] = clean
    return found


def _parse(entry: Any) -> Mutation:
    try:
        return parse_mutation(entry)
    except ValueError as exc:
        message = f"the server sent a malformed mutation: {exc}"
        raise CloudSyncError("transport_failed", message) from None


def sync_once(
    store: Store,
    remote: Remote,
    project: str,
    *,
    push_first: bool = True,
    pull_after: bool = True,
    progress: Progress | None = None,
) -> ReplicationReport:
    """Push then pull one project, recording the outcome (reason code on failure).

    Raises:
        CloudSyncError: the first failure, after it was recorded.
    """
    client = CloudClient(remote)
    report = ReplicationReport()
    keys = (remote.target_key, sync_cloud.project_target(remote.target_key, project))
    try:
        if push_first:
            push(store, client, project, report, check_access=not pull_after)
        if pull_after:
            pull(store, client, project, report, progress)
    except CloudSyncError as exc:
        record_outcomes(store, keys, exc)
        raise
    record_outcomes(store, keys, None)
    return report


def record_outcomes(store: Store, keys: Sequence[str], exc: CloudSyncError | None) -> None:
    """Record each target of ``keys`` as healthy, or failed with ``exc``'s reason code."""
    with store.write() as conn:
        for key in keys:
            if exc is None:
                sync_cloud.record_outcome(conn, key, phase="healthy", now=stamp())
            else:
                sync_cloud.record_outcome(
                    conn,
                    key,
                    phase="failed",
                    now=stamp(),
                    reason_code=exc.reason_code,
                    error=exc.message,
                )


def local_counts(store: Store, remote: Remote, project: str) -> dict[str, int]:
    """Read-only: pending local mutations and the pull cursor for ``project``."""
    with store.read() as conn:
        pushed = sync_journal.cursor(conn, remote.target_key, project)
        pending = len(pending_rows(conn, project, remote.target_key))
        pulled = sync_journal.cursor(conn, pull_key(remote.target_key), project)
    return {"pushed_through_seq": pushed, "pending_mutations": pending, "pulled_seq": pulled}
