"""Mutation entries and chunks as a client would send them."""

from __future__ import annotations

import base64
from typing import Any

from engram.cloud import chunks


def observation(origin: str, clock: int, title: str = "a title", **payload: Any) -> dict[str, Any]:
    key = f"obs-{origin}-{clock}"
    return {
        "origin": origin,
        "clock": clock,
        "entity": "observation",
        "entity_key": key,
        "op": "upsert",
        "payload": {"sync_id": key, "title": title, "content": "body", **payload},
    }


def chunk_body(
    project: str, rows: list[dict[str, Any]], created_by: str = "laptop-a"
) -> dict[str, Any]:
    chunk_id, content = chunks.encode(rows)
    return {
        "project": project,
        "chunk_id": chunk_id,
        "created_by": created_by,
        "content": base64.b64encode(content).decode(),
    }
