"""The vocabulary host plugins use to say what they want written.

A host plugin never touches a file; it returns a :class:`LinkPlan` made of these edits, and the
engine in :mod:`engram.edit` applies them (or renders them as a diff for ``--dry-run``), records
them in the link ledger, and reverses them on unlink.

Paths inside documents are tuples of keys, e.g. ``("mcpServers", "engram")``. Parents that do
not exist are created by the engine (and removed again on unlink when Engram created them and
they are empty).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TypeAlias

JSONValue: TypeAlias = bool | int | float | str | list["JSONValue"] | dict[str, "JSONValue"] | None


class Scope(StrEnum):
    """Where a registration lives: the current workspace, or the user's home (``--global``)."""

    WORKSPACE = "workspace"
    GLOBAL = "global"


class DocFormat(StrEnum):
    """How a structured document is parsed and written."""

    JSON = "json"  # strict JSON: the engine never emits a comment or a trailing comma
    JSONC = "jsonc"  # JSON with comments and trailing commas, both preserved
    TOML = "toml"
    YAML = "yaml"  # round-trip: comments, order, quoting, anchors kept


@dataclass(frozen=True)
class SetValue:
    """Set ``value`` at ``path`` inside a JSON / JSONC / TOML / YAML document.

    Args:
        file: the document (created when missing).
        format: how to parse and write it.
        path: keys from the root to the value.
        value: what Engram wants there.
        replace: replace an existing, different value (``--force`` / upgrade); when False the
            engine leaves it and reports the difference.
    """

    file: Path
    format: DocFormat
    path: tuple[str, ...]
    value: JSONValue
    replace: bool = False


@dataclass(frozen=True)
class AddToList:
    """Make ``item`` an element of the array at ``path`` (appended when no equal element exists).

    Used for hook entries, where the host keeps a list of matcher groups per event, and for
    hosts that list their servers (Continue's ``mcpServers``).

    Args:
        key: YAML lists only — items whose ``key`` field equals ``item``'s are the same entry
            (Continue's ``name``): a different one already there is a conflict unless forced;
            forced, it is replaced, and put back on unlink.
    """

    file: Path
    format: DocFormat
    path: tuple[str, ...]
    item: JSONValue
    key: str | None = None


@dataclass(frozen=True)
class ManagedBlock:
    """A Markdown block between Engram's begin/end markers, replaced in place on re-link.

    Args:
        file: the Markdown file (``AGENTS.md``, ``CLAUDE.md``...); created when missing.
        block_id: names the markers, so several blocks can share a file.
        content: the text between the markers (no markers).
    """

    file: Path
    block_id: str
    content: str


@dataclass(frozen=True)
class OwnedFile:
    """A whole file Engram owns (a skill, a rule, a plugin): written, refreshed, removed."""

    file: Path
    content: str
    mode: int = 0o644


@dataclass(frozen=True)
class RemoveValue:
    """Remove the value at ``path`` (only if it is still what Engram wrote, unless forced)."""

    file: Path
    format: DocFormat
    path: tuple[str, ...]


@dataclass(frozen=True)
class RemoveFromList:
    """Remove the element equal to ``item`` from the array at ``path``."""

    file: Path
    format: DocFormat
    path: tuple[str, ...]
    item: JSONValue


@dataclass(frozen=True)
class RemoveBlock:
    """Remove Engram's managed block ``block_id`` from a Markdown file."""

    file: Path
    block_id: str


@dataclass(frozen=True)
class RemoveFile:
    """Remove a file Engram owns (and the folders Engram created for it, once empty)."""

    file: Path


Edit: TypeAlias = (
    SetValue
    | AddToList
    | ManagedBlock
    | OwnedFile
    | RemoveValue
    | RemoveFromList
    | RemoveBlock
    | RemoveFile
)


@dataclass
class LinkPlan:
    """What one host wants done for one scope.

    Args:
        host: the host's canonical name (``"claude"``).
        scope: workspace or global.
        edits: applied in order.
        notices: lines to show the user instead of, or beside, the edits (a command to run, a
            part that is skipped and why).
        root: the workspace folder (or the home, for global) the plan is for; the ledger keeps
            one link per host, scope and root.
        server_command: the registered server command (argv), recorded in the ledger so
            ``upgrade`` can re-pin it.
    """

    host: str
    scope: Scope
    edits: list[Edit] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    root: Path | None = None
    server_command: list[str] | None = None
