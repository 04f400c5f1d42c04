"""A push body as engram's own client lays it out, one entry per line, is parsed entry by entry
while Postgres inserts the slice before (engram.cloud.push_stream) — a project's first push
included. What a user sees is what the whole-body push gives: all-or-nothing per batch, dense
sequences, replays and repeats accepted once, refusals with the same codes and audit rows,
no project created by a refused first push, and every value exact."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx2 as httpx
import psycopg

from engram.cloud.push_arrival import ArrivingPush, NotFramed, framed_project
from engram.cloud.push_stream import SLICE, STREAMED_ABOVE, slices
from engram.project_names import normalized_name
from engram.sync.cloud.client import push_body
from engram.sync.mutation import Mutation
from tests.cloud.conftest import ADMIN_TOKEN, ENGRAM, PEPPER, SYNC_TOKEN, CloudServer
from tests.cloud.entries import observation

BIG = STREAMED_ABOVE + 2 * SLICE  # streamed: a refusal in the last slice comes after the others


def _framed(body: bytes, piece: int = 64 * 1024) -> tuple[Any, list[bytes]] | None:
    """The project and entry lines the server takes from ``body`` as it arrives in pieces of
    ``piece`` bytes; None when it reads the body whole instead."""
    arriving = ArrivingPush(len(body) + 1, stall_s=5, deadline_s=30)

    async def pieces() -> AsyncIterator[bytes]:
        for start in range(0, len(body), piece):
            yield body[start : start + piece]

    async def first_line() -> bytes | None:
        await arriving.receive(pieces())
        return await arriving.head()

    head = asyncio.run(first_line())
    if head is None:
        return None
    try:
        return framed_project(head), list(arriving.entries())
    except NotFramed:
        return None


def _body(project: str, entries: list[dict[str, Any]]) -> bytes:
    # Each line as the client writes it (Mutation.to_json), unchecked: a refusal is the server's.
    body = push_body(project, [Mutation(**e) for e in entries])
    assert _framed(body) is not None  # the layout the stream parses line by line
    return body


def _push(client: httpx.Client, entries: list[dict[str, Any]], project: str = "p") -> Any:
    return client.post("/sync/mutations/push", content=_body(project, entries))


def _pulled(client: httpx.Client, project: str = "p") -> list[dict[str, Any]]:
    since, pulled = 0, []
    while True:
        page = client.get("/sync/mutations/pull", params={"project": project, "since": since})
        pulled += page.json()["mutations"]
        since = page.json()["next_since"]
        if not page.json()["has_more"]:
            return pulled


def _rows(database_url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(database_url) as conn:
        return conn.execute(sql).fetchall()


def test_a_first_push_streams_and_replays_and_repeats_are_kept_once(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    batch = [observation("a", n) for n in range(1, BIG + 1)] + [observation("a", 7)]
    first = _push(client, batch).json()
    assert (first["accepted"], first["duplicates"], first["last_seq"]) == (BIG, 1, BIG)
    assert len(first["chunks"]) == len(slices(len(batch)))  # streamed: a chunk per slice
    replay = _push(client, batch).json()
    assert (replay["accepted"], replay["duplicates"], replay["chunks"]) == (0, BIG + 1, [])
    overlap = [observation("a", n) for n in range(BIG - 99, BIG + 501)]
    more = _push(client, overlap).json()
    assert (more["accepted"], more["duplicates"], more["last_seq"]) == (500, 100, BIG + 500)
    pulled = _pulled(client)
    assert [m["seq"] for m in pulled] == list(range(1, BIG + 501))
    assert pulled[0] == {**observation("a", 1), "created_by": pulled[0]["created_by"]}
    seqs = _rows(database_url, "SELECT seq FROM cloud_mutations ORDER BY seq")
    assert [s for (s,) in seqs] == list(range(1, BIG + 501))
    chunked = _rows(database_url, "SELECT sum(mutation_count) FROM cloud_chunks")
    assert chunked == [(BIG + 500,)]


def test_a_refused_first_push_creates_no_project_and_keeps_its_codes(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    malformed = [observation("a", n) for n in range(1, BIG + 1)]
    malformed[-1] = {**malformed[-1], "payload": {**malformed[-1]["payload"], "title": " "}}
    refused = _push(client, malformed)
    assert refused.status_code == 400
    assert refused.json()["error_code"] == "observation_title_required"
    assert f"entry {BIG - 1}" in refused.json()["error"]
    foreign = [observation("a", n) for n in range(1, BIG + 1)]
    foreign[-1] = observation("a", BIG, project="other")
    forbidden = _push(client, foreign)
    assert (forbidden.status_code, forbidden.json()["error_code"]) == (403, "policy_forbidden")
    assert _rows(database_url, "SELECT count(*) FROM cloud_projects") == [(0,)]
    assert _rows(database_url, "SELECT count(*) FROM cloud_mutations") == [(0,)]
    audit = "SELECT project, outcome, entry_count FROM cloud_sync_audit_log"
    assert _rows(database_url, audit) == [("p", "rejected_foreign_project", BIG)]
    # A look-alike of an existing project is refused whole, and is not created.
    assert _push(client, [observation("a", 1, project="proj-a")], "proj-a").status_code == 200
    lookalike = [observation("a", n, project="proj_a") for n in range(1, BIG + 1)]
    similar = _push(client, lookalike, "proj_a")
    assert (similar.status_code, similar.json()["error_code"]) == (409, "similar_project")
    assert _rows(database_url, "SELECT name FROM cloud_projects") == [("proj-a",)]


def test_a_streamed_push_to_a_paused_project_is_refused_with_its_audit_row(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    assert _push(client, [observation("a", n) for n in range(1, BIG + 1)]).status_code == 200
    admin = cloud.client(ADMIN_TOKEN)
    assert admin.post("/admin/projects/p/sync", json={"enabled": False}).status_code == 200
    refused = _push(client, [observation("a", n) for n in range(BIG + 1, 2 * BIG + 1)])
    assert (refused.status_code, refused.json()["error_code"]) == (409, "sync-paused")
    assert len(_pulled(client)) == BIG
    audit = _rows(database_url, "SELECT outcome, entry_count FROM cloud_sync_audit_log")
    assert audit == [("rejected_project_paused", BIG)]


def test_entries_the_lines_cannot_carry_exactly_are_decided_by_the_whole_body(
    cloud: CloudServer,
) -> None:
    client = cloud.client(SYNC_TOKEN)
    exact = [observation("a", n) for n in range(1, BIG + 1)]
    exact[SLICE + 3]["payload"]["big"] = 2**70  # orjson would round it: json keeps it
    exact[SLICE + 4]["payload"]["ratio"] = 0.1  # a float: written by json's encoder
    assert _push(client, exact).json()["accepted"] == BIG
    pulled = {m["seq"]: m["payload"] for m in _pulled(client)}
    assert pulled[SLICE + 4]["big"] == 2**70 and type(pulled[SLICE + 4]["big"]) is int
    assert pulled[SLICE + 5]["ratio"] == 0.1
    # Two entries on one line, and a line that is not JSON: the whole body decides.
    body = _body("p", [observation("a", n) for n in range(BIG + 1, 2 * BIG + 1)])
    joined = body.replace(b",\n", b",", 1)
    assert client.post("/sync/mutations/push", content=joined).json()["accepted"] == BIG
    broken = _body("p", [observation("a", n) for n in range(2 * BIG + 1, 3 * BIG + 1)])
    cut = broken.rfind(b",\n")
    garbled = client.post("/sync/mutations/push", content=broken[:cut] + b",\n{nope\n]}")
    assert (garbled.status_code, garbled.json()["error_code"]) == (400, "invalid_json")
    assert len(_pulled(client)) == 2 * BIG


def test_only_the_exact_layout_is_framed_in_pieces_of_any_size() -> None:
    entries = [observation("a", 1), observation("a", 2), observation("a", 3)]
    body = _body("p", entries)
    compact = json.dumps({"project": "p", "entries": entries}, separators=(",", ":")).encode()
    others = (
        compact,  # one line: the whole body is parsed at once
        body.replace(b'{"project":"p",', b'{"project":"p","created_by":"x",', 1),  # another key
        body + b"{}",  # something after the body
        body.replace(b"\n]}", b"\n]", 1),  # not closed
        body.replace(b'"project":"p"', b'"project":"p\\u0000"', 1),  # a NUL: refused whole
        body.replace(b'"title":"', b'"title":"\\u0000', 1),  # a NUL in an entry
        body.replace(b",\n", b",\n\n", 1),  # an empty line between two entries
        push_body("p", []),  # no entries: the checked push refuses the empty batch
    )
    for piece in (1, 2, 3, 7, 100, 4096, len(body)):  # a separator split across pieces too
        framed = _framed(body, piece)
        assert framed is not None and framed[0] == "p"
        assert [json.loads(e) for e in framed[1]] == entries
        for other in others:
            assert _framed(other, piece) is None, (piece, other[:80])


def test_look_alike_first_pushes_sent_at_once_create_one_project(
    cloud: CloudServer, database_url: str
) -> None:
    names = [normalized_name(n) for n in ("proj-b", "proj_b", "proj.b", "proj b")]
    assert len(set(names)) == 4

    def push(name: str) -> Any:
        entries = [observation("a", n, project=name) for n in range(1, BIG + 1)]
        return _push(cloud.client(SYNC_TOKEN), entries, name)

    with ThreadPoolExecutor(len(names)) as pool:
        answers = list(pool.map(push, names))
    codes = [(a.status_code, a.json().get("error_code")) for a in answers]
    assert codes.count((409, "similar_project")) == 3, codes
    (created,) = [name for name, a in zip(names, answers, strict=True) if a.status_code == 200]
    assert _rows(database_url, "SELECT name FROM cloud_projects") == [(created,)]
    assert _rows(database_url, "SELECT count(*) FROM cloud_mutations") == [(BIG,)]


def test_a_granted_name_without_a_row_streams_its_first_push(
    cloud: CloudServer, database_url: str
) -> None:
    env = {"ENGRAM_DATABASE_URL": database_url, "ENGRAM_CLOUD_TOKEN_PEPPER": PEPPER,
           "PATH": "/usr/bin:/bin"}  # fmt: skip
    made = subprocess.run(
        [str(ENGRAM), "cloud", "bootstrap", "admin", "--username", "ann",
         "--grant-project", "team-x", "--issue-token", "laptop"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip().splitlines()[-1]
    assert _rows(database_url, "SELECT count(*) FROM cloud_projects") == [(0,)]
    entries = [observation("a", n, project="team-x") for n in range(1, BIG + 1)]
    assert _push(cloud.client(token), entries, "team-x").json()["accepted"] == BIG
    assert _rows(database_url, "SELECT name FROM cloud_projects") == [("team-x",)]
