"""Integers beyond 64 bits in a payload's own fields survive a push and a pull exactly, through
the server's body decoding and the client's (both orjson unless a long number may be there)."""

from __future__ import annotations

import json

from engram.sync.cloud.client import CloudClient
from engram.sync.cloud.config import Remote
from tests.cloud.conftest import SYNC_TOKEN, CloudServer
from tests.cloud.entries import observation


def test_integers_beyond_64_bits_are_pushed_and_pulled_exactly(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    extra = {"big": 2**70, "small": -(2**63) - 1, "edge": 2**64 - 1}
    entry = observation("dev-a", 1, **extra)
    raw = json.dumps({"project": "p", "entries": [entry]}).encode()
    reply = client.post("/sync/mutations/push", content=raw)
    assert reply.status_code == 200, reply.text
    [pulled] = client.get("/sync/mutations/pull", params={"project": "p"}).json()["mutations"]
    assert {name: pulled["payload"][name] for name in extra} == extra
    [page_entry] = CloudClient(Remote(cloud.url, SYNC_TOKEN)).pull_mutations("p", 0)["mutations"]
    assert {name: page_entry["payload"][name] for name in extra} == extra
    too_big = observation("dev-a", 2, revision_count=2**64)
    raw = json.dumps({"project": "p", "entries": [too_big]}).encode()
    refused = client.post("/sync/mutations/push", content=raw)
    assert refused.status_code == 400
    assert "'revision_count' is beyond a 64-bit integer" in refused.json()["error"]
