"""The mutation entries clients send and receive, validated at the edge.

An entry is ``{"origin", "clock", "entity", "entity_key", "op", "payload"}``: ``origin`` is the
writing replica's device id and ``clock`` its Lamport clock, which together identify the
mutation everywhere (a replay of the same pair is a duplicate, not a second mutation).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engram.cloud.problems import invalid
from engram.cloud.store.mutations import NewMutation

ENTITIES = frozenset({"session", "observation", "prompt", "relation"})
OPS = frozenset({"upsert", "delete"})
MAX_KEY = 512


def _text(entry: dict[str, Any], key: str, index: int) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_KEY:
        raise invalid("invalid_mutation", f"entry {index}: {key} must be a non-empty string")
    return value


def parse_entry(entry: Any, index: int) -> NewMutation:
    """One validated entry. Raises CloudProblem 400 ``invalid_mutation``."""
    if not isinstance(entry, dict):
        raise invalid("invalid_mutation", f"entry {index} is not an object")
    clock = entry.get("clock")
    if not isinstance(clock, int) or isinstance(clock, bool) or clock < 1:
        raise invalid("invalid_mutation", f"entry {index}: clock must be a positive integer")
    entity, op = _text(entry, "entity", index), _text(entry, "op", index)
    if entity not in ENTITIES:
        raise invalid("invalid_mutation", f"entry {index}: unknown entity {entity!r}")
    if op not in OPS:
        raise invalid("invalid_mutation", f"entry {index}: unknown op {op!r}")
    payload = entry.get("payload")
    if not isinstance(payload, dict):
        raise invalid("invalid_mutation", f"entry {index}: payload must be an object")
    if entity == "observation" and op == "upsert" and not str(payload.get("title") or "").strip():
        raise invalid("observation_title_required", f"entry {index}: an observation needs a title")
    return NewMutation(
        origin=_text(entry, "origin", index),
        clock=clock,
        entity=entity,
        entity_key=_text(entry, "entity_key", index),
        op=op,
        payload=payload,
    )


def parse_entries(entries: Any) -> list[NewMutation]:
    """A non-empty batch of entries. Raises CloudProblem 400 (``empty_batch``...)."""
    if not isinstance(entries, list):
        raise invalid("invalid_batch", "entries must be a list")
    if not entries:
        raise invalid("empty_batch", "the batch holds no entries")
    return [parse_entry(entry, index) for index, entry in enumerate(entries)]


def mutation_rows(project: str, batch: Iterable[NewMutation]) -> list[dict[str, Any]]:
    """Entries as chunk rows."""
    return [
        {
            "origin": m.origin,
            "clock": m.clock,
            "entity": m.entity,
            "entity_key": m.entity_key,
            "op": m.op,
            "project": project,
            "payload": m.payload,
        }
        for m in batch
    ]
