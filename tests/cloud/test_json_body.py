"""A push body decoded by orjson gives exactly the values json.loads gives: integers beyond
64 bits stay exact, and what json refuses or accepts is refused or accepted the same."""

from __future__ import annotations

import json

import pytest

from engram.cloud import json_body
from tests.cloud.conftest import SYNC_TOKEN, CloudServer
from tests.cloud.entries import observation

SAME = [
    b'{"a": 18446744073709551616}',
    b'{"a": -9223372036854775809}',
    b'{"a":[1, -1234567890123456789012]}',
    b'{"a" :\n\t 123456789012345678901234567890}',
    b'{"a": 18446744073709551615, "b": -9223372036854775808}',
    b'{"a": [0.1, 1e16, -0.0, 1e-400, 2.2250738585072014e-308]}',
    b'{"hash": "0000000000000000000000000001f4", "n": 7}',
    b'{"note": "at :12345678901234567890 in text"}',
    b'{"a": NaN, "b": Infinity}',
    b'{"a": "\\ud800 a lone surrogate"}',
    b'\xef\xbb\xbf{"bom": true}',
    '{"utf16": "é"}'.encode("utf-16"),
    b'{"a": 1, "a": 2}',
    b'{"nested": {"deep": [[[{"x": null}]]]}}',
]


@pytest.mark.parametrize("raw", SAME)
def test_a_body_decodes_to_the_values_json_gives(raw: bytes) -> None:
    decoded = json_body.loads(raw)
    expected = json.loads(raw)
    assert repr(decoded) == repr(expected)  # repr: 1 and 1.0, nan and nan are told apart


@pytest.mark.parametrize("raw", [b'{"a": 1,}', b"[01]", b'{"a": "\x01"}', b"", b'{"a"', b"\xff{}"])
def test_a_body_json_refuses_is_refused(raw: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(raw)
    with pytest.raises(ValueError):
        json_body.loads(raw)


def test_integers_beyond_64_bits_are_pushed_and_pulled_exactly(cloud: CloudServer) -> None:
    client = cloud.client(SYNC_TOKEN)
    extra = {"big": 2**70, "small": -(2**63) - 1, "edge": 2**64 - 1}
    entry = observation("dev-a", 1, **extra)
    raw = json.dumps({"project": "p", "entries": [entry]}).encode()
    reply = client.post("/sync/mutations/push", content=raw)
    assert reply.status_code == 200, reply.text
    [pulled] = client.get("/sync/mutations/pull", params={"project": "p"}).json()["mutations"]
    assert {name: pulled["payload"][name] for name in extra} == extra
    too_big = observation("dev-a", 2, revision_count=2**64)
    raw = json.dumps({"project": "p", "entries": [too_big]}).encode()
    refused = client.post("/sync/mutations/push", content=raw)
    assert refused.status_code == 400
    assert "'revision_count' is beyond a 64-bit integer" in refused.json()["error"]
