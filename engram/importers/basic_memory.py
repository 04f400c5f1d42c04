"""A basic-memory project (a folder of Markdown notes) as Engram records.

basic-memory keeps each note as a Markdown file: YAML front matter (``title``, ``type``,
``permalink``, ``tags``, sometimes ``created``/``modified``), then the body, whose
``## Observations`` list (``- [category] text #tag``) and ``## Relations`` list
(``- relation_type [[Target]]``) are part of the note's text. Its SQLite index is derived
from the files, so the files are what is read.

Mapping: one observation per note — title from the front matter, the whole body as content
(observations and relations included), ``topic_key`` ``basic-memory/<permalink>``, the type
from the front matter (``note`` → ``manual``), created/updated from the front matter or the
file's times. The project is the basic-memory project the folder is registered as in
``~/.basic-memory/config.json``, else the folder's name (``--project`` overrides). Each
project's notes hang off one session, ``basic-memory-<project>``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from engram.importers.records import (
    Options,
    Record,
    Where,
    stable_id,
    timestamp,
    title_from,
    unrecognised,
    with_provenance,
)
from engram.memory.checks import TYPES

TOOL = "basic-memory"
MAX_NOTE_BYTES = 8 * 1024 * 1024  # a larger file is not a note: read no further


def open_source(path: Path, options: Options) -> BasicMemoryFolder:
    """The basic-memory project folder ``path`` (refused in one line if it holds no notes)."""
    if not path.is_dir():
        raise unrecognised(TOOL, path, "not a folder of notes")
    notes = sorted(_notes(path))
    if not any(_front_matter(_read(note))[0].get("permalink") for note in notes[:2000]):
        raise unrecognised(TOOL, path, "no Markdown note with a basic-memory permalink")
    project = options.project or _project_name(path, options.home)
    return BasicMemoryFolder(path, notes, options.limit, project)


def _notes(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            candidate = Path(root) / name
            if name.endswith(".md") and candidate.is_file() and not candidate.is_symlink():
                yield candidate


def _read(note: Path) -> str:
    with note.open("rb") as handle:
        return handle.read(MAX_NOTE_BYTES).decode("utf-8", "replace")


def _project_name(folder: Path, home: Path) -> str:
    """The name basic-memory registered ``folder`` under, else the folder's name."""
    try:
        config = json.loads((home / ".basic-memory" / "config.json").read_text("utf-8"))
        projects = config.get("projects", {})
        for name, where in projects.items():
            if isinstance(where, dict):
                where = where.get("path")
            if isinstance(where, str) and Path(where).expanduser().resolve() == folder.resolve():
                return str(name)
    except (OSError, ValueError, AttributeError):
        pass
    return folder.resolve().name


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """``(fields, body)``; a note without front matter has none."""
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        fields = YAML(typ="safe").load(text[3:end])
    except (YAMLError, RecursionError, ValueError):
        return {}, text
    body = text[end + 4 :].lstrip("-").lstrip("\n")
    if not isinstance(fields, dict):
        return {}, body
    # Only plain values are read: a nested or aliased one (a YAML bomb) is never rendered.
    kept: dict[str, Any] = {}
    for key, value in fields.items():
        if isinstance(value, str | int | float | date):
            kept[str(key)] = value
        elif isinstance(value, list) and all(isinstance(v, str) for v in value[:100]):
            kept[str(key)] = [v for v in value[:100] if isinstance(v, str)]
    return kept, body


class BasicMemoryFolder:
    """The notes of one basic-memory project folder."""

    def __init__(self, folder: Path, notes: list[Path], limit: int, project: str) -> None:
        self._folder, self._notes, self._limit, self._project = folder, notes, limit, project
        self.total = len(notes) + 1  # and the project's session

    def close(self) -> None:
        """Nothing to release."""

    def records(self) -> Iterator[Record]:
        """The project's session, then one observation per note."""
        session = f"{TOOL}-{self._project}"
        first = min((note.stat().st_mtime for note in self._notes), default=0.0)
        yield (
            "sessions",
            {
                "id": session,
                "project": self._project,
                "directory": str(self._folder),
                "started_at": timestamp(first, "1970-01-01 00:00:00"),
            },
        )
        for note in self._notes:
            yield self._observation(note, session)

    def _observation(self, note: Path, session: str) -> Record:
        fields, body = _front_matter(_read(note))
        relative = note.relative_to(self._folder).as_posix()
        permalink = str(fields.get("permalink") or relative.removesuffix(".md"))
        stat = note.stat()
        modified = timestamp(stat.st_mtime, "1970-01-01 00:00:00")
        created = timestamp(str(fields.get("created") or fields.get("date") or ""), None)
        kind = str(fields.get("type") or "note")
        tags = fields.get("tags")
        lines = [body.strip()]
        if isinstance(tags, list) and tags:
            lines.append("Tags: " + ", ".join(str(tag) for tag in tags))
        where = Where(TOOL, "note", relative, str(self._folder))
        return "observations", {
            "sync_id": stable_id("obs", TOOL, self._project, permalink),
            "session_id": session,
            "type": kind if kind in TYPES else "manual",
            "title": title_from(fields.get("title"), body, fallback=note.stem),
            "content": with_provenance("\n\n".join(p for p in lines if p), where, self._limit),
            "project": self._project,
            "topic_key": f"basic-memory/{permalink}"[:200],
            "created_at": created or modified,
            "updated_at": timestamp(str(fields.get("modified") or ""), None) or modified,
        }
