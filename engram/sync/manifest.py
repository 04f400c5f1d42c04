"""``.engram/manifest.json``: the index of chunks, laid out so git merges it without conflict.

The file is JSON with one chunk entry per line, each line after the first entry starting with
a comma::

    {"engram_manifest": 1, "chunks": [
    {"format": "one chunk per line; git merges this file with merge=union"}
    ,{"id": "a3f8c1d2e4f5a6b7", "sha256": "a3f8...", "origin": "9f2c...", ...}
    ,{"id": "b7d2e4f1a0c3d5e6", "sha256": "b7d2...", "origin": "77ab...", ...}
    ]}

Writers only append a line before the closing ``]}``. Two clones that append different lines
at the same place merge with ``merge=union`` (``.engram/.gitattributes``) into both lines, and
because every entry line begins with its own comma the union is still valid JSON. Reading
is lenient: if the file was hand-edited into invalid JSON, entry lines are read one by one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_OPENING = '{"engram_manifest": 1, "chunks": ['
_FORMAT_LINE = '{"format": "one chunk per line; git merges this file with merge=union"}'
_CLOSING = "]}"


@dataclass(frozen=True, slots=True)
class ManifestEntry:
    """One chunk as the manifest lists it."""

    id: str
    sha256: str
    origin: str
    created_at: str
    mutations: int
    projects: tuple[str, ...]

    def to_line(self) -> str:
        """The entry as one JSON object line (no leading comma)."""
        return json.dumps(
            {
                "id": self.id,
                "sha256": self.sha256,
                "origin": self.origin,
                "created_at": self.created_at,
                "mutations": self.mutations,
                "projects": list(self.projects),
            },
            ensure_ascii=False,
        )


def empty_manifest() -> str:
    """The text of a manifest that lists no chunk."""
    return "\n".join([_OPENING, _FORMAT_LINE, _CLOSING]) + "\n"


def append_entry(text: str, entry: ManifestEntry) -> str:
    """``text`` with ``entry`` added as the last line before the closing ``]}``.

    A manifest that is not valid JSON any more (a hand-resolved merge left markers) is
    rebuilt in the canonical layout from the entries it still holds.
    """
    lines = text.rstrip("\n").split("\n")
    closing = max((i for i, line in enumerate(lines) if line.strip() == _CLOSING), default=None)
    if closing is None or not _is_json(text):
        rebuilt = empty_manifest().rstrip("\n").split("\n")
        lines = rebuilt[:-1] + ["," + line for line in _object_lines(text)] + rebuilt[-1:]
        closing = len(lines) - 1
    lines.insert(closing, "," + entry.to_line())
    return "\n".join(lines) + "\n"


def _object_lines(text: str) -> list[str]:
    """Every line of a broken manifest that holds one JSON object, as it was (entries we
    cannot read included: a manifest is never rewritten without an entry it held), each
    once, without the format line."""
    kept: list[str] = []
    for line in text.splitlines():
        item = _line_object(line)
        if not isinstance(item, dict) or set(item) == {"format"}:
            continue
        raw = line.strip().lstrip(",").rstrip(",").strip()
        raw = raw[:-2].rstrip() if raw.endswith("]}") and not _is_json(raw) else raw
        if raw not in kept:
            kept.append(raw)
    return kept


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def parse_manifest(text: str) -> list[ManifestEntry]:
    """Every well-formed entry of a manifest, in file order, each id once."""
    try:
        data = json.loads(text)
        items = data.get("chunks") if isinstance(data, dict) else None
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        items = None
    if not isinstance(items, list):
        items = [_line_object(line) for line in text.splitlines()]
    entries: dict[str, ManifestEntry] = {}
    for item in items:
        entry = _entry(item)
        if entry is not None and entry.id not in entries:
            entries[entry.id] = entry
    return list(entries.values())


def _line_object(line: str) -> object:
    candidate = line.strip().lstrip(",").rstrip(",").strip()
    # The last entry may share its line with the closing "]}" in a hand-edited file.
    for text in (candidate, candidate[:-2] if candidate.endswith("]}") else None):
        try:
            return json.loads(text) if text else None
        except (ValueError, RecursionError):
            continue
    return None


def _entry(item: Any) -> ManifestEntry | None:
    """A manifest item as an entry: ours, or the Go tool's (``{id, created_by, created_at,
    sessions, memories, prompts}``, also ours after a Go sync rewrote them), whose missing
    fields are empty — no full hash to check, ``created_by`` as the origin, its row counts as
    the mutation count."""
    if not isinstance(item, dict):
        return None
    chunk_id, created_at = item.get("id"), item.get("created_at")
    if not isinstance(chunk_id, str) or not chunk_id or not isinstance(created_at, str):
        return None
    sha256, projects, count = item.get("sha256"), item.get("projects"), item.get("mutations")
    origin = next(
        (v for v in (item.get("origin"), item.get("created_by")) if isinstance(v, str) and v), ""
    )
    if not isinstance(count, int) or isinstance(count, bool):
        rows = (item.get(k) for k in ("sessions", "memories", "prompts"))
        count = sum(n for n in rows if isinstance(n, int) and not isinstance(n, bool))
    return ManifestEntry(
        chunk_id,
        sha256 if isinstance(sha256, str) else "",
        origin,
        created_at,
        count,
        tuple(str(p) for p in projects) if isinstance(projects, list) else (),
    )
