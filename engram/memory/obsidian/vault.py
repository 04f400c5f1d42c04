"""Writing notes into the vault folder without ever overwriting the user's edits.

The state file maps every note Engram wrote (vault-relative path) to the SHA-256 of what it
wrote. For each note of an export:

- no file yet: write it;
- the file already holds exactly the new text: nothing to write (adopt it);
- the file still holds what Engram last wrote: rewrite it with the new text;
- anything else (the user edited it, or the file was never Engram's): keep it, report it.

Notes Engram wrote earlier that the export no longer produces are removed when unedited and
kept (reported) when edited. Every write is atomic (a temporary file renamed into place).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.errors import EngramError

STATE_FILE = Path(".engram") / "obsidian-export.json"
STATE_VERSION = 1


@dataclass
class ExportReport:
    """What an export did, note by note count; ``kept`` lists user-edited notes."""

    out: Path
    written: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    kept: list[str] = field(default_factory=list)

    @property
    def notes(self) -> int:
        """Notes the export produced (written, updated, unchanged or kept)."""
        return self.written + self.updated + self.unchanged + len(self.kept)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "out": str(self.out),
            "notes": self.notes,
            "written": self.written,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "kept_user_edited": sorted(self.kept),
        }


def digest(data: bytes) -> str:
    """SHA-256 of a note's bytes."""
    return hashlib.sha256(data).hexdigest()


class Vault:
    """The vault folder being exported into (``out``), with its state file."""

    def __init__(self, out: Path) -> None:
        self.root = _prepare(out)
        self.report = ExportReport(self.root)
        self.recorded = _load_state(self.root / STATE_FILE)
        self.state: dict[str, str] = {}
        self.seen: set[str] = set()

    def put(self, path: str, text: str) -> None:
        """Write ``<path>.md`` unless it is unchanged or the user edited it."""
        relative = f"{path}.md"
        if relative in self.seen:  # two rows rendered to one path: the first one wins
            return
        self.seen.add(relative)
        data = text.encode("utf-8")
        wanted = digest(data)
        target = self.root / relative
        current = _read(target)
        if current is None:
            _write(target, data)
            self.report.written += 1
        elif digest(current) == wanted:
            self.report.unchanged += 1
        elif self.recorded.get(relative) == digest(current):
            _write(target, data)
            self.report.updated += 1
        else:
            self.report.kept.append(relative)
            if relative in self.recorded:
                self.state[relative] = self.recorded[relative]
            return
        self.state[relative] = wanted

    def finish(self) -> ExportReport:
        """Remove unedited notes the export no longer produces; save the state file."""
        for relative, recorded in sorted(self.recorded.items()):
            if relative in self.seen:
                continue
            target = self.root / relative
            current = _read(target)
            if current is None:
                continue
            if digest(current) == recorded:
                target.unlink()
                self.report.removed += 1
            else:
                self.report.kept.append(relative)
                self.state[relative] = recorded
        _save_state(self.root / STATE_FILE, self.state)
        return self.report


def _prepare(out: Path) -> Path:
    root = out.expanduser().resolve()
    if root.exists() and not root.is_dir():
        raise EngramError(
            "obsidian.bad_out",
            f"{root} exists and is not a folder",
            "pass --out with a folder (a vault, or a folder inside one)",
        )
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EngramError(
            "obsidian.bad_out",
            f"cannot create {root}: {exc.strerror}",
            "pass --out with a folder you can write to",
        ) from exc
    return root


def _load_state(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        notes = data["notes"] if data.get("version") == STATE_VERSION else None
        if not isinstance(notes, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in notes.items()
        ):
            raise ValueError("unexpected layout")
    except (OSError, ValueError, KeyError, AttributeError) as exc:
        raise EngramError(
            "obsidian.bad_state",
            f"the export state file {path} is unreadable ({exc}); nothing was written",
            "move it aside to start over (notes already in the folder will then be kept"
            " and reported, not overwritten)",
        ) from exc
    return dict(notes)


def _save_state(path: Path, notes: dict[str, str]) -> None:
    document = {"version": STATE_VERSION, "notes": dict(sorted(notes.items()))}
    data = (json.dumps(document, indent=1) + "\n").encode("utf-8")
    if _read(path) != data:  # a run that changed nothing writes nothing, this file included
        _write(path, data)


def _read(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EngramError(
            "obsidian.unreadable_note",
            f"cannot read {target}: {exc.strerror}",
            "check the folder's permissions",
        ) from exc


def _write(target: Path, data: bytes) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".engram-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise EngramError(
            "obsidian.write_failed",
            f"cannot write {target}: {exc.strerror}",
            "check the folder's permissions and free space, then export again",
        ) from exc
