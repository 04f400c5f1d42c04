"""The Go tool's ``manifest.json``: one JSON object rewritten whole on every Go sync::

    {"version": 1, "chunks": [
      {"id": "a3f8c1d2", "created_by": "alice", "created_at": "2026-11-30T15:00:00Z",
       "sessions": 1, "memories": 4, "prompts": 2}]}

A Go sync keeps the entries it can parse and only the fields it knows, so an entry we wrote
may come back without our ``sha256``/``origin``/``projects``, and our own manifest, rewritten by
Go, turns into this format; :func:`engram.sync.manifest.parse_manifest` reads both. Adding an entry
(:func:`append_go_entry`) keeps every existing entry, known to us or not, as it was and in
its place, and the top-level fields too; only the new entry is added at the end.
"""

from __future__ import annotations

import json
from typing import Any


def is_go_manifest(text: str) -> bool:
    """Whether ``text`` is a manifest in the Go tool's layout (not ours)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "engram_manifest" not in data and "chunks" in data


def append_go_entry(text: str, entry: dict[str, Any]) -> str:
    """``text`` (a Go-layout manifest) with ``entry`` appended to its chunks, everything else
    kept; written the way the Go tool writes it (two-space indented JSON)."""
    data = json.loads(text)
    chunks = data.get("chunks")
    data["chunks"] = [*(chunks if isinstance(chunks, list) else []), entry]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
