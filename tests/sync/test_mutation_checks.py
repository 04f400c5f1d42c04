"""``parse_mutation`` takes a fast path for the common well-formed entry; every malformed one
is still refused with the same message (what the cloud answers as ``invalid_mutation``)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from engram.sync.mutation import MalformedMutation, parse_line, parse_mutation


def _entry(**payload: Any) -> dict[str, Any]:
    base = {
        "sync_id": "obs-1",
        "session_id": "s-1",
        "type": "decision",
        "title": "a title",
        "content": "body",
        "tool_name": None,
        "project": "p",
        "scope": "project",
        "topic_key": None,
        "normalized_hash": "h",
        "revision_count": 1,
        "expires_at": None,
        "created_at": "2026-11-30 12:00:00",
        "updated_at": "2026-11-30 12:00:00",
        "deleted_at": None,
    }
    base.update(payload)
    fields = {"origin": "dev", "seq": 3, "entity": "observation", "key": "obs-1", "op": "upsert"}
    return {**fields, "project": "p", "payload": {k: v for k, v in base.items() if v is not ...}}


class Text(str):
    """A str subclass: not what json.loads makes, still a string."""


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"revision_count": True}, "field 'revision_count' has the wrong type"),
        ({"revision_count": 1.0}, "field 'revision_count' has the wrong type"),
        ({"title": None}, "field 'title' has the wrong type"),
        ({"content": ...}, "payload lacks 'content'"),
        ({"session_id": "s\x07"}, "'payload session_id' contains control characters"),
        ({"session_id": "s" * 257}, "'payload session_id' is longer than 256 characters"),
        ({"sync_id": "obs-2"}, "payload 'sync_id' differs from 'key'"),
        ({"revision_count": 2**63}, "field 'revision_count' is beyond a 64-bit integer"),
        ({"duplicate_count": -(2**63) - 1}, "field 'duplicate_count' is beyond a 64-bit integer"),
    ],
)
def test_malformed_payloads_are_refused(payload: dict[str, Any], message: str) -> None:
    with pytest.raises(MalformedMutation, match=message.replace("(", r"\(")):
        parse_mutation(_entry(**payload))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("origin", "dev\u2028", "'origin' contains control characters"),
        ("key", "k\x85", "'key' contains control characters"),
        ("project", "p" * 257, "'project' is longer than 256 characters"),
    ],
)
def test_malformed_ids_are_refused(field: str, value: str, message: str) -> None:
    entry = _entry()
    entry[field] = value
    with pytest.raises(MalformedMutation, match=message):
        parse_mutation(entry)


def test_unusual_but_valid_entries_pass() -> None:
    # Non-printable but not a control character by the id rule; optional fields absent; a
    # str subclass where a string goes.
    entry = _entry(session_id="s\u00a0zero\u200bwidth", title=Text("a title"))
    entry["origin"] = "dev\u00a0laptop"
    mutation = parse_mutation(entry)
    assert mutation.origin == "dev\u00a0laptop"
    assert mutation.payload["session_id"] == "s\u00a0zero\u200bwidth"
    assert "duplicate_count" not in mutation.payload


@pytest.mark.parametrize("seq", [0, -1, 2**63, True, 1.0])
def test_a_clock_no_database_can_store_is_refused(seq: object) -> None:
    entry = _entry()
    entry["seq"] = seq
    with pytest.raises(MalformedMutation, match=r"'seq' must be a positive integer below 2\*\*63"):
        parse_mutation(entry)


def test_the_largest_storable_clock_and_counters_pass() -> None:
    entry = _entry(revision_count=2**63 - 1, duplicate_count=-(2**63))
    entry["seq"] = 2**63 - 1
    assert parse_mutation(entry).seq == 2**63 - 1


def test_a_malformed_payload_is_refused_every_time_after_good_ones_of_its_fields() -> None:
    # The checks remember the field types that passed: good entries before and between the
    # bad ones, and the same bad entry twice, must change nothing.
    for _ in range(2):
        parse_mutation(_entry())
        parse_mutation(_entry(duplicate_count=2, tool_name="bash"))
        for payload in ({"revision_count": True}, {"title": None}, {"content": ...}):
            with pytest.raises(MalformedMutation):
                parse_mutation(_entry(**payload))
        assert parse_mutation(_entry(title=Text("t"))).payload["title"] == "t"


def test_ids_are_checked_every_time_after_a_good_entry_of_their_shape() -> None:
    # A payload shape seen passing is not type-checked again: its ids still are, each time.
    cases = [
        ("payload", "session_id", "s\x07", "'payload session_id' contains control characters"),
        ("payload", "sync_id", "o" * 257, "'payload sync_id' is longer than 256 characters"),
        ("payload", "project", "p\u2028", "'payload project' contains control characters"),
        ("entry", "origin", "dev\x85", "'origin' contains control characters"),
        ("entry", "key", "k" * 257, "'key' is longer than 256 characters"),
    ]
    for where, field, value, message in cases:
        assert parse_mutation(_entry()).key == "obs-1"  # the shape is known
        entry = _entry(**({field: value} if where == "payload" else {}))
        if where == "entry":
            entry[field] = value
        with pytest.raises(MalformedMutation, match=message):
            parse_mutation(entry)
        with pytest.raises(MalformedMutation, match=message):
            parse_line(entry, json.dumps(entry).encode())


def test_a_line_is_kept_as_it_came_only_when_it_is_the_canonical_text() -> None:
    entry = _entry()
    canonical = orjson.dumps(entry)
    mutation, text = parse_line(entry, canonical)
    assert mutation == parse_mutation(entry)
    assert text == canonical.decode() == mutation.to_json()
    assert parse_line(entry, json.dumps(entry).encode())[1] is None  # spaces: written again
    reordered = {"payload": entry["payload"], **{k: v for k, v in entry.items() if k != "payload"}}
    assert parse_line(reordered, orjson.dumps(reordered))[1] is None
    floaty = _entry(extra=1.5)  # a float: orjson and json may write it differently
    assert parse_line(floaty, orjson.dumps(floaty))[1] is None
