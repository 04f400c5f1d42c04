"""What a link or unlink did (or, with ``--dry-run``, would do), file by file."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

CREATED = "created"
CHANGED = "changed"
UNCHANGED = "unchanged"
REMOVED = "removed"
CONFLICT = "conflict"


@dataclass
class FileReport:
    """One file's outcome.

    Args:
        file: the file.
        status: ``created``, ``changed``, ``removed``, ``unchanged`` or ``conflict`` (an
            edit was refused and nothing else changed the file).
        diff: unified diff of the change (filled for dry runs).
        notes: lines worth showing ("already linked", "left alone: ... (use --force)").
        conflicts: refused edits ("existing mcpServers.engram differs — use --force ...").
    """

    file: Path
    status: str
    diff: str = ""
    notes: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


@dataclass
class Report:
    """Everything one host's link or unlink did in one scope."""

    host: str
    scope: str
    files: list[FileReport] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when at least one file was (or would be) written or removed."""
        return any(f.status in (CREATED, CHANGED, REMOVED) for f in self.files)

    @property
    def conflicts(self) -> list[str]:
        """Every refused edit, prefixed with its file."""
        return [f"{f.file}: {c}" for f in self.files for c in f.conflicts]

    @property
    def diff(self) -> str:
        """The unified diffs of every file, concatenated."""
        return "".join(f.diff for f in self.files)


def status_of(before: str | None, after: str | None, conflicted: bool) -> str:
    """The status word for a file that went from ``before`` to ``after``."""
    if before == after:
        return CONFLICT if conflicted else UNCHANGED
    if before is None:
        return CREATED
    if after is None:
        return REMOVED
    return CHANGED


def unified_diff(path: Path, before: str | None, after: str | None) -> str:
    """A unified diff from ``before`` to ``after`` (``/dev/null`` for a missing side)."""
    if before == after:
        return ""
    old = (before or "").splitlines(keepends=True)
    new = (after or "").splitlines(keepends=True)
    lines = list(
        difflib.unified_diff(
            old,
            new,
            fromfile=str(path) if before is not None else "/dev/null",
            tofile=str(path) if after is not None else "/dev/null",
        )
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
