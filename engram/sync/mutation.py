"""The mutation: one change to one shared memory, as it travels between replicas.

This is the wire format shared by git chunks and the cloud server (see docs/sync.md). A
mutation is one JSON object::

    {"origin": "9f2c...", "seq": 42, "entity": "observation", "key": "obs-1a2b...",
     "op": "upsert", "project": "acme", "payload": {...}}

``origin`` is the writing replica's device id, ``seq`` its local sequence number — also a
Lamport clock, so ``(seq, origin)`` totally orders every version of every entity. This module
is pure: no store, no files, so the cloud server can import it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import (  # type: ignore[attr-defined]  # the C encoder is not in the stubs
    c_make_encoder,
    encode_basestring,  # what json.dumps(ensure_ascii=False) uses
)
from typing import Any, NamedTuple

from engram.identifiers import MAX_ID_CHARS, MAX_INTEGER, id_problem

ENTITIES = ("session", "observation", "prompt", "relation")
OPS = ("upsert", "delete")

_STR = (str,)
_OPT_STR = (str, type(None))
_INT = (int,)
_OPT_NUM = (int, float, type(None))

# The shared fields of each entity's upsert payload, with the JSON types each may hold.
# Anything local (pins, review clock, duplicate counters, runtime leases) is absent.
UPSERT_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "session": {
        "id": _STR,
        "project": _STR,
        "ownership_mode": _STR,
        "directory": _STR,
        "started_at": _STR,
        "ended_at": _OPT_STR,
        "summary": _OPT_STR,
    },
    "observation": {
        "sync_id": _STR,
        "session_id": _OPT_STR,
        "type": _STR,
        "title": _STR,
        "content": _STR,
        "tool_name": _OPT_STR,
        "project": _STR,
        "scope": _STR,
        "topic_key": _OPT_STR,
        "normalized_hash": _STR,
        "revision_count": _INT,
        "expires_at": _OPT_STR,
        "created_at": _STR,
        "updated_at": _STR,
        "deleted_at": _OPT_STR,
        "duplicate_count": _INT,
        "last_seen_at": _OPT_STR,
    },
    "prompt": {
        "sync_id": _STR,
        "session_id": _OPT_STR,
        "content": _STR,
        "project": _STR,
        "created_at": _STR,
    },
    "relation": {
        "sync_id": _STR,
        "source_id": _STR,
        "target_id": _STR,
        "relation": _STR,
        "judgment_status": _STR,
        "reason": _OPT_STR,
        "evidence": _OPT_STR,
        "confidence": _OPT_NUM,
        "marked_by_kind": _OPT_STR,
        "marked_by_actor": _OPT_STR,
        "marked_by_model": _OPT_STR,
        "session_id": _OPT_STR,
        "superseded_at": _OPT_STR,
        "created_at": _STR,
        "updated_at": _STR,
    },
}

# Fields a payload may lack (journaled before migration 0010): the receiver keeps its own.
OPTIONAL_FIELDS = {"observation": frozenset({"duplicate_count", "last_seen_at"})}

# The field of an upsert payload that must equal the mutation's ``key``.
KEY_FIELD = {"session": "id", "observation": "sync_id", "prompt": "sync_id", "relation": "sync_id"}

# Text fields that may carry user text: exported only after redaction.
TEXT_FIELDS = {
    "session": ("summary", "directory"),
    "observation": ("title", "content", "topic_key", "tool_name"),
    "prompt": ("content",),
    "relation": ("reason", "evidence", "marked_by_actor", "marked_by_model"),
}


class MalformedMutation(ValueError):
    """A mutation that does not follow the format (the message says what is wrong)."""


class Mutation(NamedTuple):
    """One change to one entity. ``payload`` holds the entity's shared fields after the
    change (upsert) or its key, project and deletion time (delete).

    Immutable: a named tuple rather than a frozen dataclass, because a cloud push builds one
    per entry and a frozen dataclass's ``__init__`` (an ``object.__setattr__`` a field) costs
    0.7 us where a tuple's costs 0.2 (parsing a 1k push's lines: 6.3 -> 5.6 us an entry)."""

    origin: str
    seq: int
    entity: str
    key: str
    op: str
    project: str
    payload: dict[str, Any]

    @property
    def version(self) -> tuple[int, str]:
        """The total order of versions: Lamport clock first, origin breaks ties."""
        return (self.seq, self.origin)

    def to_dict(self) -> dict[str, Any]:
        """The wire object (what :func:`parse_mutation` reads back)."""
        return {
            "origin": self.origin,
            "seq": self.seq,
            "entity": self.entity,
            "key": self.key,
            "op": self.op,
            "project": self.project,
            "payload": self.payload,
        }

    def to_json(self) -> str:
        """One line of compact JSON (no newline): ``json.dumps(self.to_dict(),
        ensure_ascii=False, separators=(",", ":"))``, the payload by :func:`dump_payload`
        (the whole line by orjson when the payload is plain: the same bytes, ~3x faster)."""
        fast = orjson_dumps()
        if fast is not None and type(self.seq) is int and is_plain(self.payload):
            try:
                return fast(self.to_dict()).decode("utf-8")
            except TypeError:  # orjson.JSONEncodeError is one: a lone surrogate
                pass
        return self.to_json_around(dump_payload(self.payload))

    def to_json_around(self, payload_json: str) -> str:
        """:meth:`to_json`'s exact text around ``payload_json`` (:func:`dump_payload` of this
        payload), so a caller that also stores the payload serializes it once."""
        text = encode_basestring
        return (
            f'{{"origin":{text(self.origin)},"seq":{int(self.seq)},"entity":{text(self.entity)},'
            f'"key":{text(self.key)},"op":{text(self.op)},"project":{text(self.project)},'
            f'"payload":{payload_json}}}'
        )


# json.dumps with these arguments builds this encoder on every call; one is enough.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
# JSONEncoder.encode also builds its C encoder on every call (a fifth of a payload's cost):
# this is that encoder, built once. No circular check: a payload is decoded JSON or a row.
_ENCODE = (
    c_make_encoder(None, _COMPACT.default, encode_basestring, None, ":", ",", False, False, True)
    if c_make_encoder is not None
    else None
)


# The values orjson writes byte for byte as json.dumps(ensure_ascii=False) does (floats it
# writes its own way, NaN as null): a payload of only these may take it.
_PLAIN = frozenset({str, int, bool, type(None)})


@functools.cache
def orjson_dumps() -> Callable[[Any], bytes] | None:
    """orjson's ``dumps`` when it is installed (imported on first use, by a cloud push's
    client or server: the hook path never imports it)."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson.dumps


def is_plain(payload: object) -> bool:
    """Whether ``payload`` is a dict of plain values only (orjson writes those as json does)."""
    return type(payload) is dict and _PLAIN.issuperset(map(type, payload.values()))


def dump_payload(payload: dict[str, Any]) -> str:
    """A payload as compact JSON, exactly as :meth:`Mutation.to_json` writes it.

    A payload of plain values (strings, integers, booleans, nulls: every observation,
    session and prompt) is written by orjson when it is installed, ~8x faster than json's
    encoder and the same bytes; one holding anything else, or that orjson refuses (an integer
    past 64 bits, a lone surrogate), by json's encoder.
    """
    fast = orjson_dumps()
    if fast is not None and is_plain(payload):
        try:
            return fast(payload).decode("utf-8")
        except TypeError:  # orjson.JSONEncodeError is one
            pass
    if _ENCODE is None:  # an interpreter without the C accelerator
        return _COMPACT.encode(payload)
    return "".join(_ENCODE(payload, 0))


_WIRE_KEYS = ("origin", "seq", "entity", "key", "op", "project", "payload")
_PAYLOAD_KEY = ',"payload":'


def payload_text(canonical: str) -> str:
    """The payload's JSON text in a canonical line (see :func:`parse_line`; :func:`dump_payload`
    of the payload): the payload comes last, and the fields before it, strings and an integer,
    cannot hold ``,"payload":`` (their quotes are escaped)."""
    return canonical[canonical.index(_PAYLOAD_KEY) + len(_PAYLOAD_KEY) : -1]


def parse_mutation(data: object) -> Mutation:
    """Validate a decoded JSON object and build the :class:`Mutation`.

    Raises:
        MalformedMutation: a missing or mistyped field, an unknown entity or op, or a payload
            whose key field disagrees with ``key``.
    """
    return _parsed(data)[0]


def parse_line(data: object, line: bytes) -> tuple[Mutation, str | None]:
    """``parse_mutation(data)`` for ``data`` parsed from the JSON text ``line``, and ``line``
    as text when it is exactly :meth:`Mutation.to_json` of ``data`` (the wire keys in their
    order, compact, a payload of plain values), so it can be stored as it came; None
    otherwise (then it is written again). One pass: the payload's types are looked at once.

    Raises:
        MalformedMutation: as :func:`parse_mutation`.
    """
    mutation, plain = _parsed(data)
    fast = orjson_dumps()
    if fast is None or not plain or tuple(data) != _WIRE_KEYS:  # type: ignore[arg-type]
        return mutation, None
    try:
        if fast(data) != line:
            return mutation, None
    except TypeError:  # orjson.JSONEncodeError is one
        return mutation, None
    return mutation, line.decode("utf-8")


def _parsed(data: object) -> tuple[Mutation, bool]:
    """The :class:`Mutation` of ``data``, and whether its payload is plain (:func:`is_plain`)."""
    if not isinstance(data, dict):
        raise MalformedMutation("a mutation must be a JSON object")
    get = data.get
    origin, seq, entity, key, op = get("origin"), get("seq"), get("entity"), get("key"), get("op")
    project, payload = get("project"), get("payload")
    if not isinstance(origin, str) or not origin:
        raise MalformedMutation("'origin' must be a non-empty string")
    if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq <= MAX_INTEGER:
        raise MalformedMutation("'seq' must be a positive integer below 2**63")
    if entity not in ENTITIES:
        raise MalformedMutation(f"unknown entity {entity!r}")
    if op not in OPS:
        raise MalformedMutation(f"unknown op {op!r}")
    if not isinstance(key, str) or not key:
        raise MalformedMutation("'key' must be a non-empty string")
    if not isinstance(project, str):
        raise MalformedMutation("'project' must be a string")
    if not isinstance(payload, dict):
        raise MalformedMutation("'payload' must be a JSON object")
    assert isinstance(entity, str) and isinstance(op, str)
    if op == "upsert":
        plain = _check_upsert(entity, origin, key, project, payload)
    else:
        _check_ids(origin, key, project, payload)
        if not isinstance(payload.get("deleted_at"), str):
            raise MalformedMutation("a delete needs 'deleted_at'")
        plain = is_plain(payload)
    return Mutation(origin, seq, entity, key, op, project, payload), plain


_ID_FIELDS = ("session_id", "source_id", "target_id", "id", "sync_id", "project")


def _check_ids(
    origin: str,
    key: str,
    project: str,
    payload: dict[str, Any],
    fields: tuple[str, ...] = _ID_FIELDS,
) -> None:
    """Every id and the project name follow the store's id rule (engram.identifiers); of the
    payload, the ``fields`` that hold one."""
    # A printable id of at most MAX_ID_CHARS passes: no scan. (0.3 us of a push's ~1 us of id
    # checks an entry went to the loop's tuples and to ids checked twice, below.)
    if (
        len(origin) > MAX_ID_CHARS
        or len(key) > MAX_ID_CHARS
        or len(project) > MAX_ID_CHARS
        or not origin.isprintable()
        or not key.isprintable()
        or not project.isprintable()
    ):
        for name, value in (("origin", origin), ("key", key), ("project", project)):
            _check_id(name, value)
    for field in fields:
        held = payload.get(field)
        if held is None or held in (key, project):
            continue  # the same text passed above (an upsert's key field, its project)
        if isinstance(held, str) and (len(held) > MAX_ID_CHARS or not held.isprintable()):
            _check_id(f"payload {field}", held)


def _check_id(name: str, value: str) -> None:
    problem = id_problem(value)
    if problem is not None:
        raise MalformedMutation(f"{name!r} {problem}")


_INTEGER_FIELDS = {
    entity: tuple(name for name, types in fields.items() if int in types)
    for entity, fields in UPSERT_FIELDS.items()
}


class _Missing:
    """The type of a field a payload lacks (no JSON value has it)."""


_MISSING = _Missing()
# Per entity: (field, the exact JSON types it may hold, whether it may be absent). json.loads
# makes exact types, so one set lookup settles a field; anything else gets the full check.
_FIELD_CHECKS = {
    entity: tuple(
        (name, frozenset(types), name in OPTIONAL_FIELDS.get(entity, frozenset()))
        for name, types in fields.items()
    )
    for entity, fields in UPSERT_FIELDS.items()
}


@dataclass(frozen=True, slots=True)
class _Shape:
    """What a payload shape that passed :func:`_check_field_types` settles for every payload
    of that shape: which of its fields hold ids to check (:data:`_ID_FIELDS` holding strings),
    and whether it is plain (:func:`is_plain`)."""

    ids: tuple[str, ...]
    plain: bool


# Per entity, the payload shapes (its keys, then their values' types) that passed
# _check_field_types: the check depends on nothing else. Valid shapes are few (each optional
# field is null or not); the cap only bounds a client sending odd ones.
_PASSED_SHAPES: dict[str, dict[tuple[object, ...], _Shape]] = {e: {} for e in UPSERT_FIELDS}
_MAX_SHAPES = 4096


def _check_upsert(
    entity: str, origin: str, key: str, project: str, payload: dict[str, Any]
) -> bool:
    """Check an upsert's ids and payload; whether the payload is plain."""
    # The payload's keys, then their values' types: the field check depends on nothing else,
    # so a shape seen passing passes again, and names the id fields to check.
    shape = (*payload, *map(type, payload.values()))
    passed = _PASSED_SHAPES[entity]
    known = passed.get(shape)
    _check_ids(origin, key, project, payload, _ID_FIELDS if known is None else known.ids)
    if known is None:
        _check_field_types(entity, payload)
        known = _shape_of(payload)
        if len(passed) < _MAX_SHAPES:
            passed[shape] = known
    for name in _INTEGER_FIELDS[entity]:
        value = payload.get(name)
        if type(value) is int and not -MAX_INTEGER - 1 <= value <= MAX_INTEGER:
            raise MalformedMutation(f"{entity} payload field {name!r} is beyond a 64-bit integer")
    if payload[KEY_FIELD[entity]] != key:
        raise MalformedMutation(f"{entity} payload {KEY_FIELD[entity]!r} differs from 'key'")
    if entity == "observation" and not payload["title"].strip():
        raise MalformedMutation("an observation needs a title")
    return known.plain


def _shape_of(payload: dict[str, Any]) -> _Shape:
    ids = tuple(name for name in _ID_FIELDS if isinstance(payload.get(name), str))
    return _Shape(ids, is_plain(payload))


def _check_field_types(entity: str, payload: dict[str, Any]) -> None:
    for name, exact, optional in _FIELD_CHECKS[entity]:
        value = payload.get(name, _MISSING)
        if type(value) in exact or (value is _MISSING and optional):
            continue
        if value is _MISSING:
            raise MalformedMutation(f"{entity} payload lacks {name!r}")
        if not isinstance(value, UPSERT_FIELDS[entity][name]) or isinstance(value, bool):
            raise MalformedMutation(f"{entity} payload field {name!r} has the wrong type")
