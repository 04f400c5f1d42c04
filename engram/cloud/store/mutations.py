"""The replicated mutation log (``cloud_mutations``) and its chunk history (``cloud_chunks``).

Ordering: a push locks its project's row in ``cloud_projects`` (``FOR UPDATE``) and takes the
next sequence numbers from it, so within one project sequences are dense and a reader can never
see sequence N+1 committed while N is still in flight — pulling "everything after my cursor"
loses nothing, however many servers share the database.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from json.encoder import encode_basestring  # json.dumps(ensure_ascii=False) of a str
from operator import itemgetter
from typing import Any

from psycopg import Copy, Cursor
from psycopg.rows import tuple_row

from engram.cloud.store import projects
from engram.cloud.store.db import Conn
from engram.sync.mutation import Mutation, dump_payload

# The new row is this transaction's until it commits: another push's FOR UPDATE waits for it.
_CREATE_PROJECT = """
    INSERT INTO cloud_projects (name) VALUES (%(project)s)
    ON CONFLICT (name) DO NOTHING
    RETURNING sync_enabled, last_seq
"""

_LOCK_PROJECT = """
    SELECT sync_enabled, last_seq
    FROM cloud_projects
    WHERE name = %(project)s
    FOR UPDATE
"""

# Which ids of a batch the project holds, in one statement of two parts. An origin whose
# clocks in the batch are dense (a replica pushing its own journal) is read as one index range
# (OFFSET 0 keeps the planner from turning it into a join over the whole log); any other id
# gets one index probe (LATERAL ... LIMIT 1, same reason). Either way a push costs the same on
# the first batch and the millionth, and a range never reads more than DENSE_SPAN times the
# ids it answers for.
_KNOWN_IDS = """
    SELECT known.origin, known.clock
    FROM UNNEST(%(range_origins)s::text[], %(range_lows)s::bigint[], %(range_highs)s::bigint[])
        AS r(origin, low, high)
    CROSS JOIN LATERAL (
        SELECT m.origin, m.clock FROM cloud_mutations m
        WHERE m.project = %(project)s AND m.origin = r.origin
          AND m.clock BETWEEN r.low AND r.high
        OFFSET 0
    ) AS known
    UNION ALL
    SELECT k.origin, k.clock
    FROM UNNEST(%(origins)s::text[], %(clocks)s::bigint[]) AS k(origin, clock)
    CROSS JOIN LATERAL (
        SELECT 1 FROM cloud_mutations m
        WHERE m.project = %(project)s AND m.origin = k.origin AND m.clock = k.clock
        LIMIT 1
    ) AS known
"""
# A range may span up to this many clocks per id of the batch it covers.
DENSE_SPAN = 4

# COPY, not one INSERT per row: the batch reaches Postgres as one stream in one round trip.
_COPY_MUTATIONS = """
    COPY cloud_mutations
        (project, seq, origin, clock, entity, entity_key, op, entity_project, payload,
         created_by, principal_id, chunk_id)
    FROM STDIN
"""

_ADVANCE = """
    UPDATE cloud_projects SET last_seq = %(last_seq)s WHERE name = %(project)s
"""


@dataclass(frozen=True, slots=True)
class LockedProject:
    """A project row held for update for the rest of the transaction."""

    sync_enabled: bool
    last_seq: int


def lock_existing_project(conn: Conn, project: str) -> LockedProject | None:
    """Lock the project's row until the transaction ends; None when there is none yet."""
    return locked_by(send_lock_existing_project(conn, project))


def send_lock_existing_project(conn: Conn, project: str) -> Cursor[Any]:
    """:func:`lock_existing_project` sent in the caller's pipeline: the cursor
    :func:`locked_by` reads once the pipeline has ended (read inside it, it would wait for a
    round trip of its own before the pipeline's)."""
    return conn.execute(_LOCK_PROJECT, {"project": project})


def locked_by(cursor: Cursor[Any]) -> LockedProject | None:
    """The row a cursor over ``_LOCK_PROJECT`` locked (:func:`send_lock_existing_project`)."""
    row = cursor.fetchone()
    return None if row is None else LockedProject(bool(row["sync_enabled"]), int(row["last_seq"]))


def lock_project(conn: Conn, project: str) -> LockedProject:
    """Create the project row if needed and lock it until the transaction ends."""
    # Locked first: a known project (every push after its first) costs one round trip.
    return lock_existing_project(conn, project) or create_project(conn, project)


def create_project(conn: Conn, project: str) -> LockedProject:
    """Create the project's row, held until the transaction ends (or, when another push has
    just created it, lock that one)."""
    return _created(conn, project, conn.execute(_CREATE_PROJECT, {"project": project}).fetchone())


def _created(conn: Conn, project: str, row: dict[str, Any] | None) -> LockedProject:
    """The project's row as ``_CREATE_PROJECT`` returned it, or, when another push has just
    created it (no row returned), that push's row once it is locked."""
    if row is None:
        row = conn.execute(_LOCK_PROJECT, {"project": project}).fetchone()
    assert row is not None
    return LockedProject(bool(row["sync_enabled"]), int(row["last_seq"]))


def create_project_reading_names(conn: Conn, project: str) -> tuple[LockedProject, set[str]]:
    """:func:`create_project`, in the round trip that takes the new-project lock and reads
    every known name (:func:`projects.lock_new_names`): the names as they were before the row
    was made. Whether ``project`` may be created is the caller's to decide, and to undo."""
    with conn.pipeline():
        names = projects.send_lock_new_names(conn)
        created = conn.execute(_CREATE_PROJECT, {"project": project})
    return _created(conn, project, created.fetchone()), projects.names_of(names)


def unknown_mutations(conn: Conn, project: str, batch: Sequence[Mutation]) -> list[Mutation]:
    """The mutations of ``batch`` the project has not stored yet (first of each id kept)."""
    known = known_ids(conn, project, [(m.origin, m.seq) for m in batch])
    fresh: list[Mutation] = []
    for mutation in batch:
        key = (mutation.origin, mutation.seq)
        if key not in known:
            known.add(key)
            fresh.append(mutation)
    return fresh


def known_ids(conn: Conn, project: str, ids: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
    """Which of the ``(origin, clock)`` ids the project stores already."""
    params = _known_ids_params(project, ids)
    return {(r["origin"], r["clock"]) for r in conn.execute(_KNOWN_IDS, params)}


def _known_ids_params(project: str, ids: Sequence[tuple[str, int]]) -> dict[str, object]:
    """The ranges of the dense origins of ``ids``, and the ids of the others."""
    clocks: dict[str, list[int]] = {}
    for origin, clock in ids:
        clocks.setdefault(origin, []).append(clock)
    range_origins, lows, highs, probe_origins, probe_clocks = [], [], [], [], []
    for origin, held in clocks.items():
        low, high = min(held), max(held)
        if high - low < DENSE_SPAN * len(held):
            range_origins.append(origin)
            lows.append(low)
            highs.append(high)
        else:
            probe_origins.extend([origin] * len(held))
            probe_clocks.extend(held)
    return {
        "project": project,
        "range_origins": range_origins,
        "range_lows": lows,
        "range_highs": highs,
        "origins": probe_origins,
        "clocks": probe_clocks,
    }


class LogAppender:
    """The rows of one ``COPY`` into the log, numbered after the project's last sequence
    (its row locked). Postgres inserts what was written while the caller prepares more."""

    def __init__(
        self, copy: Copy, project: str, after_seq: int, *, created_by: str, principal_id: str | None
    ) -> None:
        self._copy = copy
        self._project = project
        self._created_by = created_by
        self._principal_id = principal_id
        self.last_seq = after_seq

    def write(
        self, batch: Sequence[Mutation], payloads: Sequence[str], chunk_id: str | None
    ) -> None:
        """Queue ``batch`` (``payloads``: each one's payload as JSON text) for the log."""
        write_row, project, seq = self._copy.write_row, self._project, self.last_seq
        created_by, principal_id = self._created_by, self._principal_id
        for m, payload in zip(batch, payloads, strict=True):
            seq += 1
            write_row(
                (
                    project, seq, m.origin, m.seq, m.entity, m.key, m.op, m.project, payload,
                    created_by, principal_id, chunk_id,
                )
            )  # fmt: skip
        self.last_seq = seq


@contextmanager
def appending(
    conn: Conn,
    project: str,
    after_seq: int,
    *,
    created_by: str,
    principal_id: str | None,
    advance: bool = True,
) -> Iterator[LogAppender]:
    """A :class:`LogAppender` for the block; the project's ``last_seq`` follows it after (an
    exception in the block ends the ``COPY`` in error: roll back to a savepoint around it).
    ``advance=False``: the caller moves ``last_seq`` itself (:func:`advance`)."""
    with conn.cursor() as cur, cur.copy(_COPY_MUTATIONS) as copy:
        log = LogAppender(
            copy, project, after_seq, created_by=created_by, principal_id=principal_id
        )
        yield log
    if advance and log.last_seq != after_seq:
        advance_to(conn, project, log.last_seq)


def advance_to(conn: Conn, project: str, last_seq: int) -> None:
    """Move the project's ``last_seq`` (its row locked) past the mutations just appended."""
    conn.execute(_ADVANCE, {"project": project, "last_seq": last_seq})


def append(
    conn: Conn,
    project: str,
    after_seq: int,
    batch: Sequence[Mutation],
    *,
    created_by: str,
    principal_id: str | None,
    chunk_id: str | None,
    payloads: Sequence[str] | None = None,
) -> int:
    """Insert ``batch`` with sequences after ``after_seq`` (project row locked); return the last.

    ``payloads``, when given, are the batch's payloads already as JSON text (one per mutation).
    """
    if not batch:
        return after_seq
    texts = payloads if payloads is not None else [dump_payload(m.payload) for m in batch]
    with appending(
        conn, project, after_seq, created_by=created_by, principal_id=principal_id
    ) as log:
        log.write(batch, texts, chunk_id)
    return log.last_seq


# Sequences are dense (see the module docstring) and unique per project, so the next page is
# the range (since, since + limit]: it holds at most ``limit`` rows, needs no ORDER BY nor
# LIMIT, and costs its own rows whatever plan the statistics pick (``seq > since ... LIMIT``
# was read as "few rows" and sorted every row after the cursor; ordered in SQL, Postgres
# sorted the page's wide rows once more): :func:`_rows` puts the rows in order. The payload
# comes as the UTF-8 bytes of its JSON text: the page is written out without parsing,
# decoding or encoding it again. The project's highest sequence is read in the same statement
# (one round trip, one snapshot).
_PAGE = """
    SELECT page.seq, page.origin, page.clock, page.entity, page.entity_key, page.op,
           page.entity_project, convert_to(page.payload::text, 'UTF8'), page.created_by,
           project.last_seq
    FROM cloud_projects AS project
    LEFT JOIN LATERAL (
        SELECT seq, origin, clock, entity, entity_key, op, entity_project, payload, created_by
        FROM cloud_mutations
        WHERE project = %(project)s AND seq > %(since)s {bound}
    ) AS page ON TRUE
    WHERE project.name = %(project)s
"""
_PULL_PAGE = _PAGE.format(bound="AND seq <= %(upto)s")
# After a gap in the sequence (never made, but be exact): the next ``limit`` rows, however far.
_PULL_PAGE_UNBOUNDED = _PAGE.format(bound="ORDER BY seq LIMIT %(limit)s")


@dataclass(frozen=True, slots=True)
class PulledPage:
    """One page of the log: ``entries`` is the JSON text (UTF-8) of an array of wire mutations
    (docs/sync.md), each with the ``created_by`` of the principal that pushed it."""

    entries: bytes
    count: int
    last_in_page: int | None
    last_seq: int


def pull_page(conn: Conn, project: str, since: int, limit: int, max_bytes: int) -> PulledPage:
    """Mutations of ``project`` with a sequence above ``since``, oldest first, and the
    project's highest sequence: at most ``limit`` of them, and no more than fit in
    ``max_bytes`` bytes of payload (always at least one)."""
    params = {"project": project, "since": since, "limit": limit, "upto": since + limit}
    rows, last_seq = _rows(conn, _PULL_PAGE, params)
    if len(rows) < limit and since + limit < last_seq:  # a gap: never made, but be exact
        rows, last_seq = _rows(conn, _PULL_PAGE_UNBOUNDED, params)
    if not rows:
        return PulledPage(b"[]", 0, None, last_seq)
    if sum(map(len, map(itemgetter(7), rows))) > max_bytes:
        rows = rows[: _fitting(rows, max_bytes)]
    return PulledPage(_entries(rows), len(rows), int(rows[-1][0]), last_seq)


def _entries(rows: Sequence[tuple[Any, ...]]) -> bytes:
    """The JSON array of ``rows`` as wire mutations: each payload's bytes as they came, the
    text around them escaped as ``json.dumps(ensure_ascii=False)`` does."""
    text = encode_basestring
    parts = [b"["]
    add = parts.append
    glue = ""  # what closes the previous entry and opens this one
    for _, origin, clock, entity, key, op, entity_project, payload, created_by, _ in rows:
        add(
            f'{glue}{{"origin":{text(origin)},"seq":{clock},"entity":{text(entity)},'
            f'"key":{text(key)},"op":{text(op)},"project":{text(entity_project)},"payload":'.encode()
        )
        add(payload)
        glue = f',"created_by":{text(created_by)}}},'
    add(glue[:-1].encode() + b"]")
    return b"".join(parts)


def _rows(conn: Conn, sql: str, params: dict[str, Any]) -> tuple[list[tuple[Any, ...]], int]:
    """The page's rows in sequence order, and the project's highest sequence (0 for a project
    never pushed to)."""
    with conn.cursor(row_factory=tuple_row, binary=True) as cur:  # ints without parsing text
        rows = cur.execute(sql, params).fetchall()
    if not rows:  # no such project
        return [], 0
    if rows[0][0] is None:  # the project exists, nothing after the cursor
        return [], int(rows[0][9])
    rows.sort(key=itemgetter(0))  # linear when they come in order, as they mostly do
    return rows, int(rows[0][9])


def _fitting(rows: Sequence[tuple[Any, ...]], max_bytes: int) -> int:
    """How many of ``rows`` (at least one) fit in ``max_bytes`` bytes of payload."""
    used = 0
    for count, row in enumerate(rows):
        used += len(row[7])
        if used > max_bytes:
            return max(count, 1)
    return len(rows)


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


def _chunk_row(
    project: str,
    chunk_id: str,
    content: bytes,
    mutation_count: int,
    *,
    created_by: str,
    origin: str,
    claimed_by: str | None = None,
    principal_id: str | None = None,
) -> dict[str, Any]:
    """The parameters of :data:`_INSERT_CHUNK` for one chunk."""
    return {
        "project": project,
        "chunk_id": chunk_id,
        "created_by": created_by,
        "origin": origin,
        "content": content,
        "mutation_count": mutation_count,
        "byte_size": len(content),
        "claimed_by": claimed_by,
        "principal_id": principal_id,
    }


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
    row = _chunk_row(
        project,
        chunk_id,
        content,
        mutation_count,
        created_by=created_by,
        origin=origin,
        claimed_by=claimed_by,
        principal_id=principal_id,
    )
    return conn.execute(_INSERT_CHUNK, row).rowcount == 1


def insert_chunks(
    conn: Conn,
    project: str,
    held: Sequence[tuple[str, bytes, int]],
    *,
    created_by: str,
    origin: str,
) -> None:
    """Store the chunks ``held`` (``(chunk_id, content, mutation_count)`` each) as
    :func:`insert_chunk` does, in one pipelined ``executemany`` (one round trip); a chunk id
    the project holds already is left as it is."""
    rows = [_chunk_row(project, *chunk, created_by=created_by, origin=origin) for chunk in held]
    with conn.cursor() as cur:
        cur.executemany(_INSERT_CHUNK, rows)


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
