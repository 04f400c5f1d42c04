"""The store's records behave like frozen dataclasses without importing ``dataclasses``."""

from __future__ import annotations

import json
import pickle

import pytest

from engram.store.observations import NewObservation
from engram.store.records import Session, field_names


def _session(**changes: str | None) -> Session:
    values: dict[str, str | None] = {
        "id": "s1",
        "project": "shop",
        "ownership_mode": "local",
        "directory": "/src/shop",
        "started_at": "2026-01-01 10:00:00",
        "ended_at": None,
        "summary": None,
    }
    return Session(**{**values, **changes})  # type: ignore[arg-type]


def test_records_compare_hash_and_print_by_their_fields() -> None:
    first, same, other = _session(), _session(), _session(summary="done")
    assert first == same and hash(first) == hash(same)
    assert first != other and len({first, same, other}) == 2
    assert repr(first).startswith("Session(id='s1', project='shop', ownership_mode='local'")
    assert field_names(Session) == tuple(first.to_dict())
    assert json.loads(json.dumps(first.to_dict()))["directory"] == "/src/shop"


def test_records_are_read_only_and_survive_pickling() -> None:
    session = _session()
    with pytest.raises(AttributeError):
        session.summary = "changed"  # type: ignore[misc]
    assert not hasattr(session, "__dict__")
    assert pickle.loads(pickle.dumps(session)) == session


def test_defaults_and_positional_arguments() -> None:
    new = NewObservation(None, "note", "Title", "Body", "shop", "project", "hash")
    assert (new.tool_name, new.topic_key, new.sync_id) == (None, None, None)
    assert NewObservation(None, "note", "T", "B", "shop", "project", "h", topic_key="a/b").topic_key
