"""The fast push and pull paths give back exactly what was pushed, byte for byte where it is
hashed, and refuse a NUL however the body is encoded (issue 27 point 4)."""

from __future__ import annotations

import base64
import gzip
import json

import psycopg

from engram.sync.mutation import Mutation, dump_payload, parse_mutation
from tests.cloud.conftest import SYNC_TOKEN, CloudServer
from tests.cloud.entries import observation

AWKWARD = [
    'quotes " and \\ backslashes, \\u0000 as text',
    "line\nbreaks\ttabs\r and \u2028\u2029 separators",
    "non-ASCII: é ß 漢字 🚀 and \u00a0 a no-break space",
    "",
]


def _awkward_batch(origin: str, first: int) -> list[dict[str, object]]:
    return [
        observation(origin, first + n, title=f"title {n}: {text[:20] or 'empty'}", content=text)
        for n, text in enumerate(AWKWARD)
    ]


def test_pull_returns_every_field_exactly_across_pages(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    pushed = []
    for origin in ("dev-a", "dev-b", "dev-c"):
        for first in (1, 10):
            batch = _awkward_batch(origin, first)
            reply = client.post("/sync/mutations/push", json={"project": "p", "entries": batch})
            assert reply.status_code == 200, reply.text
            pushed += batch
    pulled, since, pages = [], 0, 0
    while True:
        page = client.get(
            "/sync/mutations/pull", params={"project": "p", "since": since, "limit": 5}
        ).json()
        pages += 1
        assert page["project"] == "p" and page["last_seq"] == len(pushed)
        pulled += page["mutations"]
        assert page["next_since"] == len(pulled)
        since = page["next_since"]
        if not page["has_more"]:
            break
    assert pages == -(-len(pushed) // 5)
    assert [m.pop("created_by") for m in pulled] == ["legacy-sync"] * len(pushed)
    assert pulled == pushed
    beyond = client.get("/sync/mutations/pull", params={"project": "p", "since": 99}).json()
    assert beyond["mutations"] == [] and beyond["next_since"] == 99
    assert beyond["has_more"] is False
    unknown = client.get("/sync/mutations/pull", params={"project": "nobody"}).json()
    assert unknown == {
        "project": "nobody",
        "mutations": [],
        "next_since": 0,
        "last_seq": 0,
        "has_more": False,
    }


def test_a_materialized_chunk_holds_each_mutations_exact_line(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    batch = _awkward_batch("dev-a", 1)
    assert client.post("/sync/mutations/push", json={"project": "p", "entries": batch}).is_success
    [listed] = client.get("/sync/pull", params={"project": "p"}).json()["chunks"]
    chunk = client.get(f"/sync/pull/{listed['chunk_id']}", params={"project": "p"}).json()
    lines = gzip.decompress(base64.b64decode(chunk["content"])).decode("utf-8").split("\n")
    assert lines[-1] == "" and len(lines) == len(batch) + 2
    assert lines[1:-1] == [parse_mutation(entry).to_json() for entry in batch]


def test_a_nul_in_a_payload_is_refused_in_utf8_and_utf16_bodies(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    body = {"project": "p", "entries": [observation("dev-a", 1, content="before\u0000after")]}
    for encoding in ("utf-8", "utf-16", "utf-32"):
        raw = json.dumps(body).encode(encoding)
        reply = client.post(
            "/sync/mutations/push", content=raw, headers={"Content-Type": "application/json"}
        )
        assert reply.status_code == 400, (encoding, reply.text)
        assert reply.json()["error_code"] == "nul_byte"
    pulled = client.get("/sync/mutations/pull", params={"project": "p"}).json()
    assert pulled["mutations"] == []


def test_the_line_around_a_dumped_payload_is_to_json_exactly() -> None:
    for text in [*AWKWARD, "\ud83d\ude80", "x" * 300]:
        entry = observation(f'o-{text[:3]}"\\', 7, title="t", content=text)
        mutation = Mutation(**entry)  # type: ignore[arg-type]
        line = json.dumps(mutation.to_dict(), ensure_ascii=False, separators=(",", ":"))
        assert mutation.to_json_around(dump_payload(mutation.payload)) == line
        assert mutation.to_json() == line
    odd = {"f": [0.1, 1e16, -0.0, 1e-07], "big": 2**70, "t": True, "nested": {"a": [None, {}]}}
    assert dump_payload(odd) == json.dumps(odd, ensure_ascii=False, separators=(",", ":"))


def test_a_push_with_some_duplicates_materializes_only_the_new_ones(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    first = [observation("dev-a", 1), observation("dev-a", 2)]
    assert client.post("/sync/mutations/push", json={"project": "p", "entries": first}).is_success
    again = [observation("dev-a", 2), observation("dev-b", 1), observation("dev-a", 3)]
    reply = client.post("/sync/mutations/push", json={"project": "p", "entries": again}).json()
    assert (reply["accepted"], reply["duplicates"], reply["last_seq"]) == (2, 1, 4)
    held = {}
    for chunk_id in reply["chunks"]:
        chunk = client.get(f"/sync/pull/{chunk_id}", params={"project": "p"}).json()
        lines = gzip.decompress(base64.b64decode(chunk["content"])).decode().splitlines()
        held[chunk_id] = [json.loads(line)["key"] for line in lines[1:]]
    assert sorted(held.values()) == [["obs-dev-a-3"], ["obs-dev-b-1"]]


def test_duplicates_are_found_however_the_clocks_of_a_batch_spread(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    push = "/sync/mutations/push"
    first = [observation("dev-a", n) for n in range(1, 11)] + [observation("dev-b", 5)]
    assert client.post(push, json={"project": "p", "entries": first}).json()["accepted"] == 11
    # dev-a's clocks are dense (read as one index range that also holds 3..10, not pushed
    # again); dev-b's are far apart (probed one by one).
    mixed = [observation("dev-a", n) for n in (2, 11, 12)]
    mixed += [observation("dev-b", n) for n in (1, 5, 1_000_000)]
    reply = client.post(push, json={"project": "p", "entries": mixed}).json()
    assert (reply["accepted"], reply["duplicates"], reply["last_seq"]) == (4, 2, 15)
    again = client.post(push, json={"project": "p", "entries": first + mixed}).json()
    assert (again["accepted"], again["duplicates"]) == (0, len(first) + len(mixed))
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT seq, origin, clock FROM cloud_mutations WHERE project = 'p' ORDER BY seq"
        ).fetchall()
    assert [seq for seq, _, _ in rows] == list(range(1, 16))
    assert sorted((o, c) for _, o, c in rows) == sorted(
        [("dev-a", n) for n in range(1, 13)] + [("dev-b", n) for n in (1, 5, 1_000_000)]
    )


def test_pull_pages_are_exact_bytes_empty_full_and_unescaped(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    origin = 'dév-"ü"\\漢'  # an id may hold quotes, backslashes and non-ASCII
    text = "tab\t ctl\x1f del\x7f é 漢字 🚀 \u2028"
    entries = [
        observation(origin, n, content=text if n == 1 else f"row {n}") for n in range(1, 1001)
    ]
    for start in (0, 500):
        batch = {"project": "p", "entries": entries[start : start + 500]}
        assert client.post("/sync/mutations/push", json=batch).status_code == 200
    full = client.get("/sync/mutations/pull", params={"project": "p", "limit": 5000})
    page = full.json()
    assert len(page["mutations"]) == 1000 and page["next_since"] == 1000
    assert page["has_more"] is False
    assert [m.pop("created_by") for m in page["mutations"]] == ["legacy-sync"] * 1000
    assert page["mutations"] == entries
    raw = full.content
    # UTF-8 as is (never \u-escaped), control characters escaped the way json.dumps does.
    assert json.dumps(origin, ensure_ascii=False).encode() in raw
    assert "é 漢字 🚀 \u2028".encode() in raw and b"\\t ctl\\u001f del\x7f" in raw
    assert raw.startswith(b'{"project": "p","mutations":[{"origin":')  # as it always was
    assert raw.endswith(b',"next_since":1000,"last_seq":1000,"has_more":false}')
    empty = client.get("/sync/mutations/pull", params={"project": "p", "since": 1000})
    assert empty.content == (
        b'{"project": "p","mutations":[],"next_since":1000,"last_seq":1000,"has_more":false}'
    )
    assert empty.headers["content-type"] == "application/json"


def test_a_page_is_in_sequence_order_after_its_rows_moved_on_disk(
    cloud: CloudServer, database_url: str
) -> None:
    client = cloud.client(SYNC_TOKEN)
    entries = [observation("dev-a", n) for n in range(1, 41)]
    assert client.post("/sync/mutations/push", json={"project": "p", "entries": entries}).is_success
    # An update writes new row versions at the end of the table, as the chunk repair's does:
    # read in the table's order (what the planner picks for a table this small), the first
    # rows would now come last.
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("UPDATE cloud_mutations SET chunk_id = NULL WHERE project = 'p' AND seq <= 10")
        conn.execute("ANALYZE cloud_mutations")
    for since, limit in ((0, 40), (5, 20), (0, 1000)):
        page = client.get(
            "/sync/mutations/pull", params={"project": "p", "since": since, "limit": limit}
        ).json()
        assert [m["seq"] for m in page["mutations"]] == list(
            range(since + 1, min(since + limit, 40) + 1)
        )
