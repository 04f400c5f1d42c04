"""How much one pull page holds: as many mutations as the client asks for up to the server's
cap, and never more payload text than a client reads, however big the memories are (issue 27
point 4: pages are large because every request has a fixed cost)."""

from __future__ import annotations

from typing import Any

from engram.cloud.replication import MAX_PULL, MAX_PULL_BYTES
from engram.sync.cloud.client import MAX_RESPONSE_BYTES, PULL_PAGE, CloudClient
from engram.sync.cloud.config import Remote
from tests.cloud.conftest import SYNC_TOKEN, CloudServer, StartServer, server_env
from tests.cloud.entries import observation


def _pull_all(client: CloudClient) -> list[dict[str, Any]]:
    pages, since = [], 0
    while True:
        page = client.pull_mutations("p", since)
        pages.append(page)
        since = page["next_since"]
        if not page["has_more"]:
            return pages


def test_a_page_of_big_memories_stops_at_the_text_budget_and_the_rest_follows(
    cloud: CloudServer,
) -> None:
    http = cloud.client(SYNC_TOKEN)
    content = "a big memory, " * 30_000  # 420,000 characters
    count = MAX_PULL_BYTES // len(content) + 5
    entries = [observation("dev-a", n, content=content) for n in range(1, count + 1)]
    for start in range(0, count, 8):  # under the push body cap
        batch = {"project": "p", "entries": entries[start : start + 8]}
        assert http.post("/sync/mutations/push", json=batch).status_code == 200

    pages = _pull_all(CloudClient(Remote(cloud.url, SYNC_TOKEN)))
    first = pages[0]["mutations"]
    assert 1 < len(first) < count and pages[0]["has_more"] is True
    assert pages[0]["next_since"] == len(first)
    held = sum(len(m["payload"]["content"]) for m in first)
    assert held <= MAX_PULL_BYTES < held + len(content)
    assert len(http.get("/sync/mutations/pull", params={"project": "p"}).content) < (
        MAX_RESPONSE_BYTES
    )
    pulled = [m["seq"] for page in pages for m in page["mutations"]]
    assert pulled == list(range(1, count + 1))  # every one, once, in order


def test_one_memory_larger_than_the_budget_still_comes_alone(
    start_server: StartServer, database_url: str
) -> None:
    cloud = start_server(server_env(database_url, ENGRAM_CLOUD_MAX_PUSH_BYTES=str(16 << 20)))
    http = cloud.client(SYNC_TOKEN)
    huge = "x" * (MAX_PULL_BYTES + 1)
    for n, content in enumerate((huge, "small"), start=1):
        batch = {"project": "p", "entries": [observation("dev-a", n, content=content)]}
        assert http.post("/sync/mutations/push", json=batch).status_code == 200
    pages = _pull_all(CloudClient(Remote(cloud.url, SYNC_TOKEN)))
    assert [[m["seq"] for m in page["mutations"]] for page in pages] == [[1], [2]]


def test_the_client_asks_for_the_servers_cap_and_gets_no_more(cloud: CloudServer) -> None:
    assert PULL_PAGE == MAX_PULL
    http = cloud.client(SYNC_TOKEN)
    for start in range(1, MAX_PULL + 2, 500):
        entries = [observation("dev-a", n) for n in range(start, min(start + 500, MAX_PULL + 2))]
        assert http.post(
            "/sync/mutations/push", json={"project": "p", "entries": entries}
        ).is_success
    pages = _pull_all(CloudClient(Remote(cloud.url, SYNC_TOKEN)))
    assert [len(page["mutations"]) for page in pages] == [MAX_PULL, 1]
    asked_more = http.get("/sync/mutations/pull", params={"project": "p", "limit": 10 * MAX_PULL})
    assert len(asked_more.json()["mutations"]) == MAX_PULL
