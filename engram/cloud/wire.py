"""Mutations as clients send and receive them: the format of :mod:`engram.sync.mutation`.

An entry is one mutation object ``{"origin", "seq", "entity", "key", "op", "project",
"payload"}`` (docs/sync.md). ``(origin, seq)`` identifies it everywhere: a replay of the same
pair is a duplicate, not a second mutation. Validation is the sync module's own, so the cloud
accepts exactly what a replica can apply.
"""

from __future__ import annotations

from typing import Any

from engram.cloud.problems import invalid
from engram.nul_guard import body_holds_nul
from engram.sync import json_body
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


def json_object(body: bytes | bytearray) -> dict[str, Any]:
    """``body`` parsed as a JSON object (400 ``invalid_json``, or ``nul_byte`` when a string
    holds a NUL)."""
    try:
        parsed = json_body.loads(body or b"{}")
    except (ValueError, RecursionError) as exc:
        raise invalid("invalid_json", "the body is not valid JSON") from exc
    if not isinstance(parsed, dict):
        raise invalid("invalid_json", "the body must be a JSON object")
    if body_holds_nul(body, parsed):
        raise invalid("nul_byte", "the body holds a NUL character; nothing was stored")
    return parsed
