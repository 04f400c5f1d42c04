"""The Go tool's chunks: ``chunks/<8 hex>.jsonl.gz``, one gzipped JSON document.

Its id is the first 8 hex digits of the SHA-256 of the uncompressed document::

    {"sessions": [{id, project, directory, started_at, ended_at, summary}],
     "observations": [{sync_id?, session_id, type, title, content, tool_name, project, scope,
                       topic_key, revision_count, duplicate_count, created_at, ...}],
     "prompts": [{sync_id?, session_id, content, project, created_at}],
     "mutations": [{seq, entity, entity_key, op, payload: "<json>", project, ...}]}

v0.1.x writes the three row lists; 2.x adds ``mutations`` (session, observation and prompt
upserts and deletes, each payload a JSON string; an entity we do not have is skipped). Reading turns both into our mutations: a
row list entry becomes an upsert, a ``mutations`` entry the upsert or delete it says (rows
that a mutation also covers are not read twice). Versions: a Go mutation keeps its ``seq``,
a row from a list gets clock 1; the origin is ``go:<author>`` (the manifest's ``created_by``),
or the ``origin`` Engram wrote into the entry. A row without a ``sync_id`` (v0.1.x) gets the
same derived id a Go export's row gets (:func:`engram.store.legacy.convert.legacy_sync_id`),
so a store, its export and its chunks never arrive as copies.

Writing (:func:`encode_go_chunk`): our pending mutations in this same form — the row lists the
Go tool reads, plus ``mutations`` with our origin and clock so an Engram reading it back
converges exactly as with our own chunks, and ``engram_relations`` (Go has no relations; it
ignores the key).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from engram.errors import EngramError
from engram.store.legacy.convert import content_hash, engram_time, legacy_sync_id
from engram.sync.chunk import MAX_CHUNK_BYTES, Chunk, EncodedChunk, gzip_content, inflate
from engram.sync.mutation import MalformedMutation, Mutation, parse_mutation

GO_ID = re.compile(r"[0-9a-f]{8}")
ID_LENGTH = 8
ROW_LISTS = {"sessions": "session", "observations": "observation", "prompts": "prompt"}
LIST_OF = {entity: key for key, entity in ROW_LISTS.items()}


def is_go_chunk_id(chunk_id: str) -> bool:
    """Whether ``chunk_id`` (a file name without ``.jsonl.gz``) is a Go chunk's."""
    return GO_ID.fullmatch(chunk_id) is not None


def read_go_chunk(
    name: str, data: bytes, *, author: str = "", created_at: str = "", limit: int = MAX_CHUNK_BYTES
) -> Chunk:
    """Decompress (bounded), verify and translate a Go chunk's bytes into our mutations.

    Raises:
        EngramError: ``sync.bad_chunk`` naming the chunk (not gzip, does not hash to its name,
            not a JSON document of row lists, a malformed row) or ``sync.chunk_too_large``.
    """
    raw = inflate(name, data, limit)
    digest = hashlib.sha256(raw).hexdigest()
    if digest[:ID_LENGTH] != name:
        raise _refused(name, "its SHA-256 does not match its name")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _refused(name, "it is not one JSON document") from None
    if not isinstance(doc, dict):
        raise _refused(name, "it is not a JSON object of sessions, observations and prompts")
    origin = f"go:{author.strip() or 'unknown'}"
    when = str(engram_time(created_at) or "")
    try:
        mutations = _translate(doc, origin, when)
    except MalformedMutation as exc:
        raise _refused(name, f"an entry is malformed: {exc}") from None
    return Chunk(name, digest, origin, when, tuple(mutations))


def _translate(doc: dict[str, Any], origin: str, chunk_time: str) -> list[Mutation]:
    # Entities Go may log that have no counterpart here are skipped, not a reason to refuse
    # the memories beside them.
    listed = [
        item
        for item in _list(doc, "mutations")
        if not isinstance(item, dict) or item.get("entity") in (*LIST_OF, "relation")
    ]
    from_log = [_from_go_mutation(item, origin) for item in listed]
    covered = {(m.entity, m.key) for m in from_log}
    sessions = {s.get("id"): s for s in _list(doc, "sessions") if isinstance(s, dict)}
    rows: list[Mutation] = []
    for key, entity in ROW_LISTS.items():
        for item in _list(doc, key):
            mutation = _from_row(entity, item, origin, chunk_time, sessions)
            if (mutation.entity, mutation.key) not in covered:
                rows.append(mutation)
    relations = [parse_mutation(item) for item in _list(doc, "engram_relations")]
    return rows + from_log + relations


def _list(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise MalformedMutation(f"{key!r} is not a list")
    return value


def _from_row(
    entity: str, row: Any, origin: str, chunk_time: str, sessions: dict[Any, Any]
) -> Mutation:
    if not isinstance(row, dict):
        raise MalformedMutation(f"a {entity} row is not an object")
    payload = _payload(entity, row, chunk_time, sessions)
    key = str(payload["id"] if entity == "session" else payload["sync_id"])
    return parse_mutation(
        {
            "origin": origin,
            "seq": 1,
            "entity": entity,
            "key": key,
            "op": "upsert",
            "project": payload["project"],
            "payload": payload,
        }
    )


def _from_go_mutation(item: Any, origin: str) -> Mutation:
    if not isinstance(item, dict):
        raise MalformedMutation("a mutation is not an object")
    entity, op = item.get("entity"), item.get("op")
    if entity not in LIST_OF and entity != "relation":
        raise MalformedMutation(f"unknown entity {entity!r}")
    body = item.get("payload")
    if isinstance(body, str):
        try:
            body = json.loads(body)
            if isinstance(body, str):  # Go sometimes encodes the payload twice
                body = json.loads(body)
        except (ValueError, RecursionError):
            raise MalformedMutation("its payload is not JSON") from None
    if not isinstance(body, dict):
        raise MalformedMutation("its payload is not an object")
    seq = item.get("seq")
    seq = seq if isinstance(seq, int) and not isinstance(seq, bool) and seq > 0 else 1
    writer = item.get("origin") if isinstance(item.get("origin"), str) else origin
    project = item.get("project") if isinstance(item.get("project"), str) else body.get("project")
    if op == "delete":
        payload = _delete_payload(str(entity), body, str(project or ""))
        key = str(item.get("entity_key") or payload["key"])
        payload.pop("key")
    else:
        payload = _payload(str(entity), body, "", {})
        key = str(payload["id"] if entity == "session" else payload["sync_id"])
    return parse_mutation(
        {
            "origin": writer,
            "seq": seq,
            "entity": entity,
            "key": key,
            "op": op,
            "project": str(project if project is not None else payload.get("project", "")),
            "payload": payload,
        }
    )


def _text(row: dict[str, Any], name: str) -> str | None:
    value = row.get(name)
    return value if isinstance(value, str) else None


def _time(row: dict[str, Any], name: str, default: str) -> str:
    value = engram_time(_text(row, name))
    return value if isinstance(value, str) and value else default


def _payload(
    entity: str, row: dict[str, Any], chunk_time: str, sessions: dict[Any, Any]
) -> dict[str, Any]:
    if entity == "session":
        return _session(row, chunk_time)
    session = sessions.get(row.get("session_id")) or {}
    project = _text(row, "project") or _text(session, "project") or ""
    created = _time(row, "created_at", chunk_time)
    if entity == "prompt":
        content = _text(row, "content") or ""
        return {
            "sync_id": _text(row, "sync_id")
            or legacy_sync_id("prompt", project, row.get("session_id"), created, None, content),
            "session_id": _text(row, "session_id"),
            "content": content,
            "project": project,
            "created_at": created,
        }
    return _observation(row, project, created)


def _session(row: dict[str, Any], chunk_time: str) -> dict[str, Any]:
    return {
        "id": _text(row, "id") or "",
        "project": _text(row, "project") or "",
        "ownership_mode": _text(row, "ownership_mode") or "shared",
        "directory": _text(row, "directory") or "",
        "started_at": _time(row, "started_at", chunk_time),
        "ended_at": engram_time(_text(row, "ended_at")),
        "summary": _text(row, "summary"),
    }


def _observation(row: dict[str, Any], project: str, created: str) -> dict[str, Any]:
    title, content = _text(row, "title") or "", _text(row, "content") or ""
    deleted = engram_time(_text(row, "deleted_at"))
    sync_id = _text(row, "sync_id") or legacy_sync_id(
        "obs", project, row.get("session_id"), created, title, content
    )
    return {
        "sync_id": sync_id,
        "session_id": _text(row, "session_id"),
        "type": _text(row, "type") or "manual",
        "title": title,
        "content": content,
        "tool_name": _text(row, "tool_name"),
        "project": project,
        "scope": _text(row, "scope") or "project",
        "topic_key": _text(row, "topic_key"),
        "normalized_hash": _text(row, "normalized_hash") or content_hash(content),
        "revision_count": _count(row, "revision_count"),
        "expires_at": engram_time(_text(row, "expires_at")),
        "created_at": created,
        "updated_at": _time(row, "updated_at", created),
        "deleted_at": deleted if isinstance(deleted, str) and deleted else None,
        "duplicate_count": _count(row, "duplicate_count"),
        "last_seen_at": engram_time(_text(row, "last_seen_at")),
    }


def _count(row: dict[str, Any], name: str) -> int:
    value = row.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def _delete_payload(entity: str, body: dict[str, Any], project: str) -> dict[str, Any]:
    key_field = "id" if entity == "session" else "sync_id"
    deleted = engram_time(_text(body, "deleted_at"))
    payload: dict[str, Any] = {
        "key": _text(body, key_field) or "",
        "project": project,
        "deleted_at": deleted if isinstance(deleted, str) and deleted else "",
    }
    if _text(body, "session_id"):
        payload["session_id"] = body["session_id"]
    if not payload["deleted_at"]:
        raise MalformedMutation("a delete needs 'deleted_at'")
    return payload


# -- writing ---------------------------------------------------------------------------------

GO_SESSION_FIELDS = ("id", "project", "directory", "started_at", "ended_at", "summary")
GO_OBSERVATION_FIELDS = (
    "sync_id", "session_id", "type", "title", "content", "tool_name", "project", "scope",
    "topic_key", "revision_count", "duplicate_count", "last_seen_at", "created_at",
    "updated_at", "deleted_at",
)  # fmt: skip
GO_PROMPT_FIELDS = ("sync_id", "session_id", "content", "project", "created_at")
GO_FIELDS = {
    "session": GO_SESSION_FIELDS,
    "observation": GO_OBSERVATION_FIELDS,
    "prompt": GO_PROMPT_FIELDS,
}


def go_document(mutations: Sequence[Mutation]) -> dict[str, Any]:
    """Our mutations as a Go chunk document (row lists, the mutation log, our relations)."""
    doc: dict[str, list[Any]] = {"sessions": [], "observations": [], "prompts": []}
    log: list[dict[str, Any]] = []
    relations: list[dict[str, Any]] = []
    for m in mutations:
        if m.entity == "relation":
            relations.append(m.to_dict())
            continue
        if m.op == "upsert":
            doc[LIST_OF[m.entity]].append({f: m.payload.get(f) for f in GO_FIELDS[m.entity]})
        log.append(_go_mutation(m))
    return {**doc, "mutations": log, "engram_relations": relations}


def _go_mutation(m: Mutation) -> dict[str, Any]:
    key_field = "id" if m.entity == "session" else "sync_id"
    body = dict(m.payload)
    if m.op == "delete":
        body.update({key_field: m.key, "deleted": True, "hard_delete": True})
    return {
        "seq": m.seq,
        "origin": m.origin,
        "source": m.origin,
        "entity": m.entity,
        "entity_key": m.key,
        "op": m.op,
        "project": m.project,
        "payload": json.dumps(body, ensure_ascii=False, sort_keys=True),
    }


def encode_go_chunk(mutations: Sequence[Mutation]) -> EncodedChunk:
    """Our mutations as a Go chunk: the document's bytes, their 8-hex id, gzipped."""
    raw = json.dumps(go_document(mutations), ensure_ascii=False, separators=(",", ":"))
    data = raw.encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    return EncodedChunk(digest[:ID_LENGTH], digest, gzip_content(data), len(mutations))


def row_counts(mutations: Sequence[Mutation]) -> dict[str, int]:
    """The Go manifest's counters: sessions, memories (observations) and prompts upserted."""
    counts = {"sessions": 0, "memories": 0, "prompts": 0}
    names = {"session": "sessions", "observation": "memories", "prompt": "prompts"}
    for m in mutations:
        if m.op == "upsert" and m.entity in names:
            counts[names[m.entity]] += 1
    return counts


def _refused(name: str, why: str) -> EngramError:
    return EngramError(
        "sync.bad_chunk",
        f"Go chunk {name} refused: {why}; nothing of it was applied",
        "restore the file from git (git checkout -- .engram/chunks) or ask its author to"
        " sync again",
        chunk=name,
    )
