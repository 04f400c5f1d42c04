"""A big push to a project that exists is validated slice by slice while Postgres inserts the
slice before (engram.cloud.push_stream); what a user sees is what the checked push gives:
all-or-nothing per batch, dense sequences, replays accepted 0 times, refusals in the same
order with their audit rows."""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import psycopg

from engram.cloud.auth import Principal
from engram.cloud.gate import admit_and_run
from engram.cloud.push_stream import (
    SLICE,
    STREAMED_ABOVE,
    SmallBatch,
    push_streamed,
    release_later,
)
from engram.cloud.settings import CloudSettings
from engram.cloud.store.db import CloudStore, Conn
from tests.cloud.conftest import ADMIN_TOKEN, SYNC_TOKEN, CloudServer
from tests.cloud.entries import observation

# Streamed: a refusal in the last slice comes after five were written.
BIG = STREAMED_ABOVE + 2 * SLICE


def _push(client: httpx.Client, entries: list[dict[str, Any]]) -> httpx.Response:
    return client.post("/sync/mutations/push", json={"project": "p", "entries": entries})


def _pulled(client: httpx.Client) -> list[dict[str, Any]]:
    since, pulled = 0, []
    while True:
        page = client.get("/sync/mutations/pull", params={"project": "p", "since": since}).json()
        pulled += page["mutations"]
        since = page["next_since"]
        if not page["has_more"]:
            return pulled


def _chunked_keys(client: httpx.Client, database_url: str) -> list[tuple[str, int]]:
    """Every (origin, seq) the project's materialized chunks hold, as the manifest lists them."""
    from engram.sync.chunk import read_chunk

    manifest = client.get("/sync/pull", params={"project": "p"}).json()["chunks"]
    held = []
    for listed in manifest:
        with psycopg.connect(database_url) as conn:
            row = conn.execute(
                "SELECT content FROM cloud_chunks WHERE chunk_id = %s", (listed["chunk_id"],)
            ).fetchone()
        assert row is not None
        held += [(m.origin, m.seq) for m in read_chunk(listed["chunk_id"], bytes(row[0])).mutations]
    return held


def test_a_big_push_is_stored_once_in_order_with_dense_sequences_and_chunks(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    assert _push(client, [observation("a", 1)]).status_code == 200  # the project exists now
    batch = [observation("a", n) for n in range(2, BIG + 2)]
    batch += [observation("b", n) for n in range(1, 4)] + [observation("a", 5)]  # one repeat
    answer = _push(client, batch).json()
    assert (answer["accepted"], answer["duplicates"], answer["last_seq"]) == (BIG + 3, 1, BIG + 4)
    replay = _push(client, batch).json()
    assert (replay["accepted"], replay["duplicates"], replay["chunks"]) == (0, len(batch), [])
    pulled = _pulled(client)
    assert [m["seq"] for m in pulled if m["origin"] == "a"] == list(range(1, BIG + 2))
    assert [m["seq"] for m in pulled if m["origin"] == "b"] == [1, 2, 3]
    assert len(pulled) == BIG + 4
    chunked = _chunked_keys(client, database_url)
    assert sorted(chunked) == sorted((m["origin"], m["seq"]) for m in pulled)
    with psycopg.connect(database_url) as conn:
        seqs = [r[0] for r in conn.execute("SELECT seq FROM cloud_mutations ORDER BY seq")]
    assert seqs == list(range(1, BIG + 5))


def test_a_bad_entry_in_the_last_slice_refuses_the_whole_batch_and_keeps_no_row(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    assert _push(client, [observation("a", 1)]).status_code == 200
    malformed = [observation("a", n) for n in range(2, BIG + 2)]
    malformed[-1] = {**malformed[-1], "op": "explode"}
    refused = _push(client, malformed)
    assert refused.status_code == 400
    assert refused.json()["error_code"] == "invalid_mutation"
    assert f"entry {BIG - 1}" in refused.json()["error"]
    foreign = [observation("a", n) for n in range(2, BIG + 2)]
    foreign[-1] = observation("a", BIG + 1, project="other")
    forbidden = _push(client, foreign)
    assert forbidden.status_code == 403
    assert forbidden.json()["error_code"] == "policy_forbidden"
    # Both malformed and foreign: the malformed entry is reported, as the checked push does.
    both = [*foreign[:-1], {**foreign[-1], "op": "explode"}]
    both[SLICE + 1] = observation("a", SLICE + 3, project="other")
    assert _push(client, both).json()["error_code"] == "invalid_mutation"
    assert [m["seq"] for m in _pulled(client)] == [1]
    accepted = _push(client, [observation("a", n) for n in range(2, 5)]).json()
    assert accepted["last_seq"] == 4  # nothing the refused batches wrote took a sequence
    with psycopg.connect(database_url) as conn:
        count = conn.execute("SELECT count(*) FROM cloud_mutations").fetchone()
        audit = conn.execute(
            "SELECT action, outcome, entry_count, reason_code FROM cloud_sync_audit_log"
        ).fetchall()
    assert count == (4,)
    assert audit == [("mutation_push", "rejected_foreign_project", BIG, "policy_forbidden")]


def test_a_bad_entry_in_the_first_slice_refuses_the_batch_and_makes_no_project(
    cloud: CloudServer, database_url: str
) -> None:
    # A new project: a refusal leaves no row of it behind, and no sequence taken.
    client = cloud.client(SYNC_TOKEN)
    malformed = [observation("a", n, project="q") for n in range(1, BIG + 1)]
    malformed[3] = {**malformed[3], "op": "explode"}
    refused = client.post("/sync/mutations/push", json={"project": "q", "entries": malformed})
    assert refused.status_code == 400
    assert refused.json()["error_code"] == "invalid_mutation"
    assert "entry 3" in refused.json()["error"]
    foreign = [observation("a", n, project="q") for n in range(1, BIG + 1)]
    foreign[0] = observation("a", 1, project="other")
    forbidden = client.post("/sync/mutations/push", json={"project": "q", "entries": foreign})
    assert forbidden.status_code == 403
    with psycopg.connect(database_url) as conn:
        projects = conn.execute("SELECT name FROM cloud_projects").fetchall()
        count = conn.execute("SELECT count(*) FROM cloud_mutations").fetchone()
    assert (projects, count) == ([], (0,))
    accepted = client.post(
        "/sync/mutations/push", json={"project": "q", "entries": foreign[1:]}
    ).json()
    assert (accepted["accepted"], accepted["last_seq"]) == (BIG - 1, BIG - 1)


def test_a_big_push_to_a_paused_project_is_refused_with_its_audit_row(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    assert _push(client, [observation("a", 1)]).status_code == 200
    admin = cloud.client(ADMIN_TOKEN)
    assert admin.post("/admin/projects/p/sync", json={"enabled": False}).status_code == 200
    refused = _push(client, [observation("a", n) for n in range(2, BIG + 2)])
    assert refused.status_code == 409
    assert refused.json()["error_code"] == "sync-paused"
    assert [m["seq"] for m in _pulled(client)] == [1]
    with psycopg.connect(database_url) as conn:
        audit = conn.execute("SELECT outcome, entry_count FROM cloud_sync_audit_log").fetchall()
    assert audit == [("rejected_project_paused", BIG)]


class _Held:
    """Something a push held (weakly referenceable, unlike a Mutation)."""


def test_what_a_streamed_push_hands_over_is_freed_slice_by_slice_on_the_release_thread() -> None:
    freed: list[tuple[int, str]] = []
    slices = [[_Held() for _ in range(50)] for _ in range(4)]
    refs = [
        weakref.ref(item, lambda _, n=n: freed.append((n, threading.current_thread().name)))
        for n, held in enumerate(slices)
        for item in held
    ]
    release_later(slices)
    del slices
    deadline = time.monotonic() + 10
    while any(ref() is not None for ref in refs) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert all(ref() is None for ref in refs)  # nothing kept
    assert {name for _, name in freed} == {"engram-push-release"}
    assert [n for n, _ in freed][::50] == [3, 2, 1, 0]  # one slice after the other


def test_a_push_locks_its_project_once_it_holds_more_than_a_slice_not_before(
    database_url: str,
) -> None:
    # The lock is asked for while the rest of the first slice is still arriving; a batch of one
    # slice or less never holds it while it arrives (other pushes to the project wait on it).
    settings = CloudSettings(
        database_url=database_url, sync_token=SYNC_TOKEN, allowed_projects=("*",)
    )
    entries = [observation("a", n) for n in range(1, BIG + 1)]

    def locked() -> bool:
        with psycopg.connect(database_url) as probe:
            try:
                probe.execute("SELECT 1 FROM cloud_projects WHERE name = 'p' FOR UPDATE NOWAIT")
            except psycopg.errors.LockNotAvailable:
                return True
            return False

    def push(count: int) -> tuple[object, list[bool]]:
        """What the push answered, and whether the project was locked as each entry from the
        SLICE-th on was asked for (what the push had done with the entries before it)."""
        seen: list[bool] = []

        def arriving() -> Iterator[dict[str, Any]]:
            for index, entry in enumerate(entries[:count]):
                if index >= SLICE - 1:
                    seen.append(locked())
                yield entry

        def work(conn: Conn, principal: Principal) -> object:
            return push_streamed(conn, principal, "p", arriving())

        answer = admit_and_run(
            store, settings, f"Bearer {SYNC_TOKEN}", work, route="mutations_push", project="p"
        )
        return answer, seen

    with CloudStore.open(database_url, max_size=1) as store:
        with store.transaction() as conn:
            conn.execute("INSERT INTO cloud_projects (name) VALUES ('p')")
        small, seen = push(SLICE)
        assert isinstance(small, SmallBatch) and small.entry_count == SLICE
        assert seen == [False]  # left to the checked push, which locks once it is all in
        streamed, seen = push(BIG)
        assert isinstance(streamed, dict) and streamed["accepted"] == BIG
        # Entries 1..SLICE+1 in: not yet; from the next on, locked until the commit.
        assert seen[:3] == [False, False, True] and all(seen[2:])
