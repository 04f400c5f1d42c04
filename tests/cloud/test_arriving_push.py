"""A push is stored while its body arrives (engram.cloud.push_arrival): the server holds a
database connection, and the project's lock, while the client sends. A client that stalls,
dawdles, sends too much, goes away part way or is not who it says ends with a clear answer and
nothing stored, and the server goes on answering others. Engram's own client sends each batch
as it makes it (a chunked request), and a retry sends the same bytes."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import httpx2 as httpx
import psycopg

from engram.cloud.push_stream import STREAMED_ABOVE
from engram.sync.cloud.client import CloudClient, push_body
from engram.sync.cloud.config import Remote
from engram.sync.cloud.replicate import PIECE_ENTRIES, PushBody, send_batches
from engram.sync.mutation import Mutation
from tests.cloud.conftest import SYNC_TOKEN, CloudServer, StartServer, server_env
from tests.cloud.entries import observation

BIG = STREAMED_ABOVE + 400  # streamed: the push holds the project's lock while it arrives


def _body(entries: list[dict[str, Any]], project: str = "p") -> bytes:
    return push_body(project, [Mutation(**e) for e in entries])


def _chunked(data: bytes) -> bytes:
    return f"{len(data):X}\r\n".encode() + data + b"\r\n"


def _open(server: CloudServer, token: str | None = SYNC_TOKEN) -> socket.socket:
    """A raw connection with a chunked push's headers sent."""
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    sock.sendall(
        (
            "POST /sync/mutations/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"{auth}Transfer-Encoding: chunked\r\n\r\n"
        ).encode()
    )
    return sock


def _answer(sock: socket.socket) -> tuple[int, dict[str, Any]]:
    """The status and JSON body of the answer on ``sock`` (read until it closes or is whole)."""
    raw = b""
    while b"\r\n\r\n" not in raw or len(raw.split(b"\r\n\r\n", 1)[1]) < _length(raw):
        piece = sock.recv(65536)
        if not piece:
            break
        raw += piece
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body or b"{}")


def _length(raw: bytes) -> int:
    for line in raw.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 1 << 30


def _stored(database_url: str) -> tuple[int, int]:
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM cloud_mutations), (SELECT count(*) FROM cloud_chunks)"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _half(entries: int) -> bytes:
    """The first part of a framed body: its head and about half of ``entries`` entries."""
    body = _body([observation("a", n) for n in range(1, entries + 1)])
    return body[: len(body) // 2]


def test_a_body_that_stops_arriving_is_refused_and_nothing_is_stored(
    start_server: StartServer, database_url: str
) -> None:
    server = start_server(server_env(database_url, ENGRAM_CLOUD_BODY_STALL_S="1"))
    with _open(server) as sock:
        sock.sendall(_chunked(_half(BIG * 2)))  # past the streamed threshold, then nothing
        started = time.monotonic()
        status, answer = _answer(sock)
    assert (status, answer["error_code"]) == (408, "body_stalled")
    assert time.monotonic() - started < 10
    assert _stored(database_url) == (0, 0)
    # The project's lock was let go: the next push to it is stored at once.
    client = server.client(SYNC_TOKEN)
    entries = [observation("a", n) for n in range(1, BIG + 1)]
    pushed = client.post("/sync/mutations/push", content=_body(entries))
    assert pushed.json()["accepted"] == BIG


def test_a_body_that_trickles_past_the_deadline_is_refused(
    start_server: StartServer, database_url: str
) -> None:
    env = server_env(database_url, ENGRAM_CLOUD_BODY_STALL_S="2", ENGRAM_CLOUD_BODY_DEADLINE_S="2")
    server = start_server(env)
    with _open(server) as sock:
        part = _half(BIG * 2)
        sock.sendall(_chunked(part[: len(part) // 2]))
        deadline = time.monotonic() + 8
        rest, status, answer = part[len(part) // 2 :], 0, {}
        sock.settimeout(0.5)
        while rest and time.monotonic() < deadline:  # a byte every half second: never a stall
            try:
                sock.sendall(_chunked(rest[:1]))
            except OSError:
                break
            rest = rest[1:]
            try:
                if sock.recv(1, socket.MSG_PEEK):
                    break
            except TimeoutError:
                continue
        sock.settimeout(10)
        status, answer = _answer(sock)
    assert (status, answer["error_code"]) == (408, "body_too_slow")
    assert _stored(database_url) == (0, 0)


def test_a_chunked_body_over_the_limit_is_refused_and_nothing_is_stored(
    start_server: StartServer, database_url: str
) -> None:
    server = start_server(server_env(database_url, ENGRAM_CLOUD_MAX_PUSH_BYTES="200000"))
    body = _body([observation("a", n) for n in range(1, BIG + 1)])  # ~400 KB, no length given
    assert len(body) > 200_000
    with _open(server) as sock:
        for start in range(0, len(body), 16384):
            try:
                sock.sendall(_chunked(body[start : start + 16384]))
            except OSError:  # the server may answer and close before the rest is sent
                break
        else:
            sock.sendall(b"0\r\n\r\n")
        status, answer = _answer(sock)
    assert (status, answer["error_code"]) == (413, "payload_too_large")
    assert _stored(database_url) == (0, 0)


def test_a_client_that_goes_away_part_way_leaves_nothing_and_the_server_goes_on(
    cloud: CloudServer, database_url: str
) -> None:
    for _ in range(3):
        with _open(cloud) as sock:
            sock.sendall(_chunked(_half(BIG * 2)))
            time.sleep(0.3)  # the push has begun storing what arrived
    client = cloud.client(SYNC_TOKEN)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # the cut-off pushes roll back as they notice
        entries = [observation("b", n) for n in range(1, 11)]
        answer = client.post("/sync/mutations/push", content=_body(entries))
        if answer.status_code == 200:
            break
        time.sleep(0.2)
    assert answer.json()["accepted"] == 10
    assert _stored(database_url) == (10, 1)
    assert "Traceback" not in cloud.log.read_text()


def test_an_unauthenticated_chunked_push_is_refused_before_anything_is_stored(
    cloud: CloudServer, database_url: str
) -> None:
    body = _body([observation("a", n) for n in range(1, BIG + 1)])
    for token in (None, "wrong-token"):
        with _open(cloud, token) as sock:
            sock.sendall(_chunked(body) + b"0\r\n\r\n")
            status, answer = _answer(sock)
        assert status == 401, answer
    assert _stored(database_url) == (0, 0)


def test_a_layout_broken_part_way_is_decided_by_the_whole_body(
    cloud: CloudServer, database_url: str
) -> None:
    entries = [observation("a", n) for n in range(1, BIG + 1)]
    body = _body(entries)
    cut = body.index(b",\n", len(body) // 2)
    # A valid body whose second half is one line: the stream gives up, the whole body is stored.
    joined = body[:cut] + body[cut:].replace(b",\n", b",")
    with _open(cloud) as sock:
        for start in range(0, len(joined), 8192):
            sock.sendall(_chunked(joined[start : start + 8192]))
        sock.sendall(b"0\r\n\r\n")
        status, answer = _answer(sock)
    assert (status, answer["accepted"], answer["duplicates"]) == (200, BIG, 0)
    assert _stored(database_url)[0] == BIG


def test_the_client_sends_each_batch_as_it_makes_it_and_a_retry_sends_the_same_bytes(
    cloud: CloudServer,
) -> None:
    mutations = [Mutation(**observation("a", n)) for n in range(1, 3 * PIECE_ENTRIES + 6)]
    body = PushBody("p", mutations)
    pieces = list(body)
    assert len(pieces) == 1 + 4  # the head alone first, then the entries PIECE_ENTRIES a piece
    assert b"".join(pieces) == push_body("p", mutations)
    assert list(body.batch) == mutations
    assert b"".join(body) == b"".join(pieces)  # a retry
    client = CloudClient(Remote(cloud.url, SYNC_TOKEN))
    sent = [
        (len(batch), answer["accepted"]) for batch, answer in send_batches(client, "p", mutations)
    ]
    assert sent == [(len(mutations), len(mutations))]
    pulled = httpx.get(
        f"{cloud.url}/sync/mutations/pull",
        params={"project": "p", "since": 0},
        headers={"Authorization": f"Bearer {SYNC_TOKEN}"},
    ).json()["mutations"]
    assert [m["seq"] for m in pulled] == [m.seq for m in mutations]
