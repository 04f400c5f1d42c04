"""Mutations as clients send and receive them: the format of :mod:`engram.sync.mutation`.

An entry is one mutation object ``{"origin", "seq", "entity", "key", "op", "project",
"payload"}`` (docs/sync.md). ``(origin, seq)`` identifies it everywhere: a replay of the same
pair is a duplicate, not a second mutation. Validation is the sync module's own, so the cloud
accepts exactly what a replica can apply.
"""

from __future__ import annotations

from typing import Any

from engram.cloud.problems import invalid
from engram.identifiers import MAX_INTEGER
from engram.sync.mutation import MalformedMutation, Mutation, parse_mutation


def parse_entry(entry: Any, index: int) -> Mutation:
    """One validated entry. Raises CloudProblem 400 ``invalid_mutation`` (or
    ``observation_title_required`` for an untitled observation upsert)."""
    try:
        return parse_mutation(entry)
    except MalformedMutation as exc:
        code = "observation_title_required" if "needs a title" in str(exc) else "invalid_mutation"
        raise invalid(code, f"entry {index}: {exc}") from exc


def parse_entries(entries: Any) -> list[Mutation]:
    """A non-empty batch of entries. Raises CloudProblem 400 (``empty_batch``...)."""
    if not isinstance(entries, list):
        raise invalid("invalid_batch", "entries must be a list")
    if not entries:
        raise invalid("empty_batch", "the batch holds no entries")
    return [parse_entry(entry, index) for index, entry in enumerate(entries)]


def stored_mutation(row: dict[str, Any]) -> Mutation:
    """A ``cloud_mutations`` row back as the mutation the client sent."""
    return Mutation(
        origin=row["origin"],
        seq=int(row["clock"]),
        entity=row["entity"],
        key=row["entity_key"],
        op=row["op"],
        project=row["entity_project"],
        payload=row["payload"],
    )


def entry_ids(entries: Any) -> list[tuple[str, int]] | None:
    """The ``(origin, seq)`` of every entry of a non-empty batch, read before the entries are
    validated; None when the batch is not a non-empty list or an entry's id is malformed
    (:func:`parse_entries` then says which, in its own words)."""
    if not isinstance(entries, list) or not entries:
        return None
    ids = []
    for entry in entries:
        if not isinstance(entry, dict):
            return None
        origin, seq = entry.get("origin"), entry.get("seq")
        if not isinstance(origin, str) or not origin or type(seq) is not int:
            return None
        if not 1 <= seq <= MAX_INTEGER:
            return None
        ids.append((origin, seq))
    return ids
