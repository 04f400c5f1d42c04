"""Mutations and chunks as a replica would send them (the format of docs/sync.md)."""

from __future__ import annotations

import base64
from typing import Any

from engram.sync.chunk import encode_chunk
from engram.sync.mutation import Mutation


def observation(
    origin: str, seq: int, title: str = "a title", *, project: str = "p", **fields: Any
) -> dict[str, Any]:
    key = f"obs-{origin}-{seq}"
    payload = {
        "sync_id": key,
        "session_id": None,
        "type": "manual",
        "title": title,
        "content": "body",
        "tool_name": None,
        "project": project,
        "scope": "project",
        "topic_key": None,
        "normalized_hash": "h",
        "revision_count": 1,
        "expires_at": None,
        "created_at": "2026-11-30 12:00:00",
        "updated_at": "2026-11-30 12:00:00",
        "deleted_at": None,
        **fields,
    }
    return {
        "origin": origin,
        "seq": seq,
        "entity": "observation",
        "key": key,
        "op": "upsert",
        "project": project,
        "payload": payload,
    }


def chunk_body(
    project: str, rows: list[dict[str, Any]], created_by: str = "laptop-a"
) -> dict[str, Any]:
    lines = [Mutation(**{**row}).to_json() for row in rows]
    chunk = encode_chunk(rows[0]["origin"], "2026-11-30 12:00:00", lines)
    return {
        "project": project,
        "chunk_id": chunk.id,
        "created_by": created_by,
        "content": base64.b64encode(chunk.data).decode(),
    }
