"""Pull pages asked for one ahead (issue 27 point 4): the server names the next page in its
headers, the client asks for it before it parses the page it has, the body stays the
authority, and a server without those headers is read a page at a time."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import psycopg
import pytest

from engram.sync.cloud import pull_ahead
from engram.sync.cloud.client import CloudClient, CloudSyncError
from engram.sync.cloud.config import Remote
from tests.cloud.conftest import SYNC_TOKEN, CloudServer
from tests.cloud.entries import observation


def _push(cloud: CloudServer, count: int) -> None:
    http = cloud.client(SYNC_TOKEN)
    for start in range(1, count + 1, 500):
        entries = [observation("dev-a", n) for n in range(start, min(start + 500, count + 1))]
        answer = http.post("/sync/mutations/push", json={"project": "p", "entries": entries})
        assert answer.status_code == 200, answer.text


def _pulls_served(database_url: str) -> int:
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM cloud_auth_audit_log WHERE route = 'mutations_pull'"
        ).fetchone()
    return int(row[0]) if row else 0


def _established(server_port: int) -> int:
    """Open connections to ``server_port`` from this side (state 01 in /proc/net/tcp)."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[2].split(":")[1], 16) == server_port and fields[3] == "01":
            count += 1
    return count


def test_the_server_names_the_next_page_in_headers_that_match_its_body(
    cloud: CloudServer,
) -> None:
    _push(cloud, 1500)
    http = cloud.client(SYNC_TOKEN)
    first = http.get("/sync/mutations/pull", params={"project": "p", "limit": 1000})
    last = http.get("/sync/mutations/pull", params={"project": "p", "since": 1000})
    assert (first.headers["Engram-Next-Since"], first.headers["Engram-Has-More"]) == (
        "1000",
        "true",
    )
    assert (last.headers["Engram-Next-Since"], last.headers["Engram-Has-More"]) == (
        "1500",
        "false",
    )
    assert (first.json()["next_since"], last.json()["has_more"]) == (1000, False)


def test_the_next_page_is_asked_for_while_the_caller_has_this_one(
    cloud: CloudServer, database_url: str
) -> None:
    _push(cloud, 2500)
    served = _pulls_served(database_url)
    pages = pull_ahead.pages(CloudClient(Remote(cloud.url, SYNC_TOKEN)), "p", 0, 1000)
    first = next(pages)
    deadline = time.monotonic() + 10
    while _pulls_served(database_url) < served + 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _pulls_served(database_url) == served + 2  # page 2 served, page 3 not yet asked for
    rest = list(pages)
    seqs = [m["seq"] for page in (first, *rest) for m in page["mutations"]]
    assert seqs == list(range(1, 2501))
    assert [page["has_more"] for page in (first, *rest)] == [True, True, False]
    assert _pulls_served(database_url) == served + 3


def test_a_caller_that_stops_early_leaves_only_its_kept_connection(cloud: CloudServer) -> None:
    _push(cloud, 2500)
    client = CloudClient(Remote(cloud.url, SYNC_TOKEN))
    port = int(cloud.url.rsplit(":", 1)[1])
    before = _established(port)
    pages = pull_ahead.pages(client, "p", 0, 1000)
    assert len(next(pages)["mutations"]) == 1000
    assert _established(port) == before + 2  # the kept connection and the one asked ahead
    pages.close()
    assert _established(port) == before + 1
    assert len(client.pull_mutations("p", 0, 10)["mutations"]) == 10  # still usable


class _Pages(BaseHTTPRequestHandler):
    """A stand-in server answering pull pages of ``mutations`` (``per_page`` each), with the
    headers Engram's server sends when ``named`` (and ``lie`` added to the cursor named),
    dropping the connection once at ``drop_at``."""

    protocol_version = "HTTP/1.1"
    mutations: ClassVar[list[dict[str, Any]]] = []
    per_page = 2
    named = True
    lie = 0
    drop_at: int | None = None
    asked: ClassVar[list[int]] = []

    def do_GET(self) -> None:
        since = int(parse_qs(urlsplit(self.path).query)["since"][0])
        cls = type(self)
        cls.asked.append(since)
        if since == cls.drop_at:
            cls.drop_at = None
            self.close_connection = True
            return
        page = cls.mutations[since : since + cls.per_page]
        next_since = since + len(page)
        more = next_since < len(cls.mutations)
        body = json.dumps(
            {"project": "p", "mutations": page, "next_since": next_since,
             "last_seq": len(cls.mutations), "has_more": more}
        ).encode()  # fmt: skip
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if cls.named:
            self.send_header("Engram-Next-Since", str(next_since + cls.lie))
            self.send_header("Engram-Has-More", "true" if more else "false")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Quiet(ThreadingHTTPServer):
    """A server that does not print the broken pipe of an answer its client stopped reading
    (a pull stopped with a page asked ahead)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@pytest.fixture
def stand_in() -> Iterator[tuple[str, type[_Pages]]]:
    handler = type("Pages", (_Pages,), {"asked": [], "mutations": []})
    handler.mutations = [observation("dev-a", n) for n in range(1, 8)]
    server = _Quiet(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()


def _seqs(url: str) -> list[int]:
    pages = pull_ahead.pages(CloudClient(Remote(url, SYNC_TOKEN)), "p", 0)
    return [m["seq"] for page in pages for m in page["mutations"]]


def test_a_server_without_the_headers_is_read_a_page_at_a_time(
    stand_in: tuple[str, type[_Pages]],
) -> None:
    url, handler = stand_in
    handler.named = False
    pages = pull_ahead.pages(CloudClient(Remote(url, SYNC_TOKEN)), "p", 0)
    next(pages)
    assert handler.asked == [0]  # nothing asked ahead: the cursor is in the body only
    assert [m["seq"] for page in pages for m in page["mutations"]] == [3, 4, 5, 6, 7]
    assert handler.asked == [0, 2, 4, 6]


def test_headers_that_disagree_with_the_body_are_refused(
    stand_in: tuple[str, type[_Pages]],
) -> None:
    url, handler = stand_in
    handler.lie = 2
    with pytest.raises(CloudSyncError) as refused:
        _seqs(url)
    assert refused.value.reason_code == "transport_failed"
    assert "disagree with its body" in refused.value.message


def test_a_page_asked_ahead_that_gets_no_answer_is_asked_again(
    stand_in: tuple[str, type[_Pages]],
) -> None:
    url, handler = stand_in
    handler.drop_at = 4
    assert _seqs(url) == [1, 2, 3, 4, 5, 6, 7]
    assert handler.asked == [0, 2, 4, 4, 6]
