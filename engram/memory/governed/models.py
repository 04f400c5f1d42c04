"""Result types of the governed operations: frozen dataclasses with ``to_dict()``.

Plain dataclasses (not pydantic) so the hook path can build a load without paying pydantic's
import cost.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

TYPES = ("rule", "decision", "convention", "procedure", "gotcha", "context", "note")
SCOPES = ("project", "global")
# A scope may be narrowed (global -> project) but never widened.
SCOPE_WIDTH = {"project": 0, "global": 1}


@dataclass(frozen=True, slots=True)
class Memory:
    """One governed memory (durable knowledge or a working-tier note)."""

    rowid: int
    id: str
    project: str
    scope: str
    tier: str
    key: str
    type: str
    title: str
    body: str
    variants: dict[str, str]
    roles: list[str]
    objective: str
    source: str
    content_hash: str
    status: str
    superseded_by: str | None
    valid_until: str | None
    usage_count: int
    fetch_count: int
    created_at: str
    updated_at: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Memory:
        """Build from a store row (JSON columns decoded)."""
        values = {name: row[name] for name in cls.__dataclass_fields__ if name in row}
        values["variants"] = json.loads(row["variants"] or "{}")
        values["roles"] = json.loads(row["roles"] or "[]")
        return cls(**values)

    def card(self) -> str:
        """The one-line card: ``- [type] id: title`` (plus ``(note)`` for working notes)."""
        suffix = " (note)" if self.tier == "working" else ""
        return f"- [{self.type}] {self.id}: {_one_line(self.title)}{suffix}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (rowid left out: it is not a public handle)."""
        data = asdict(self)
        data.pop("rowid")
        return data


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory proposed for saving, before a human approved it."""

    title: str
    body: str
    type: str = "convention"
    scope: str = "project"
    key: str = ""
    supersedes: str = ""
    roles: tuple[str, ...] = ()
    variants: tuple[tuple[str, str], ...] = ()
    objective: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (stable key order, used for integrity digests)."""
        data = asdict(self)
        data["roles"] = list(self.roles)
        data["variants"] = dict(self.variants)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Candidate:
        """Inverse of :meth:`to_dict`."""
        return cls(
            title=str(data["title"]),
            body=str(data["body"]),
            type=str(data.get("type", "convention")),
            scope=str(data.get("scope", "project")),
            key=str(data.get("key", "")),
            supersedes=str(data.get("supersedes", "")),
            roles=tuple(str(r) for r in data.get("roles", ())),
            variants=tuple(sorted((str(k), str(v)) for k, v in data.get("variants", {}).items())),
            objective=str(data.get("objective", "")),
        )


@dataclass(frozen=True, slots=True)
class Verdict:
    """What committing a candidate would do: ADD, UPDATE <id>, SUPERSEDE <id>, NOOP <id>."""

    action: str
    target: str = ""
    related: tuple[str, ...] = ()

    def line(self) -> str:
        """The deterministic ``Verdict:`` text shown to the human."""
        if self.action == "NOOP":
            return f"NOOP duplicate of {self.target}"
        text = f"{self.action} {self.target}".strip()
        if self.related:
            text += f" (related to {', '.join(self.related)})"
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"action": self.action, "target": self.target, "related": list(self.related)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        """Inverse of :meth:`to_dict`."""
        return cls(str(data["action"]), str(data["target"]), tuple(data.get("related", ())))


@dataclass(frozen=True, slots=True)
class Proposal:
    """A numbered proposal and the token that lets ``engram_commit`` write it."""

    kind: str  # "memories" | "note"
    candidates: tuple[Candidate, ...]
    verdicts: tuple[Verdict, ...]
    approval_token: str
    expires_at: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "kind": self.kind,
            "candidates": [
                {"number": i, **c.to_dict(), "verdict": v.line()}
                for i, (c, v) in enumerate(zip(self.candidates, self.verdicts, strict=True), 1)
            ],
            "approval_token": self.approval_token,
            "expires_at": self.expires_at,
        }


@dataclass(frozen=True, slots=True)
class CommitOutcome:
    """What one commit wrote and what it deferred."""

    written: tuple[dict[str, Any], ...] = ()
    deferred: tuple[dict[str, Any], ...] = ()
    note: dict[str, Any] | None = None
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        data: dict[str, Any] = {"written": list(self.written), "deferred": list(self.deferred)}
        if self.note is not None:
            data["note"] = self.note
        return data


@dataclass(frozen=True, slots=True)
class Route:
    """A classified task and the memories it routes to."""

    query: str
    kinds: tuple[str, ...]
    entries: tuple[RouteEntry, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "query": self.query,
            "kinds": list(self.kinds),
            "entries": [e.to_dict() for e in self.entries],
        }


JOURNAL_HEADING = "## From the journal (recorded by agents; not approved rules)"


@dataclass(frozen=True, slots=True)
class JournalMatch:
    """One journal observation that matches a governed query."""

    id: int
    title: str
    type: str
    project: str
    created_at: str
    code: str = ""  # "stale: <reasons>" / "<path> changed since saved"; "" when current

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, labelled with its tier."""
        return {
            "id": self.id,
            "title": self.title,
            "type": self.type,
            "project": self.project,
            "created_at": self.created_at,
            "tier": "journal",
            "approved": False,
            "code": self.code or None,
        }

    def line(self) -> str:
        """One line for the text a person or an agent reads."""
        line = f"- #{self.id} [{self.type}] {self.title} (journal: `engram show {self.id}`)"
        return f"{line} — {self.code}" if self.code else line


def journal_section(matches: Sequence[JournalMatch]) -> str:
    """The labelled text block (empty when nothing matched)."""
    if not matches:
        return ""
    return JOURNAL_HEADING + "\n" + "\n".join(m.line() for m in matches) + "\n"


@dataclass(frozen=True, slots=True)
class LoadPack:
    """A tiered pack: bodies for what fits, cards for the rest, ids the budget shed."""

    text: str
    selected_keys: tuple[str, ...]
    body_keys: tuple[str, ...]
    card_ids: tuple[str, ...]
    omitted_ids: tuple[str, ...]
    tokens: int
    budget_tokens: int | None
    kinds: tuple[str, ...] = ()
    explain: tuple[dict[str, Any], ...] = field(default=())
    # Matching journal entries (the other tier), labelled and kept out of the approved pack.
    journal: tuple[JournalMatch, ...] = ()
    # The rowids given a body (in order): what a kept session pack counts as loaded again.
    body_rowids: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The ``structuredContent.data`` of ``engram_load``."""
        data: dict[str, Any] = {
            "selected_keys": list(self.selected_keys),
            "body_keys": list(self.body_keys),
            "card_ids": list(self.card_ids),
            "omitted_ids": list(self.omitted_ids),
            "tokens": self.tokens,
            "budget_tokens": self.budget_tokens,
            "kinds": list(self.kinds),
        }
        if self.explain:
            data["explain"] = list(self.explain)
        data["journal"] = [m.to_dict() for m in self.journal]
        return data

    def with_journal(self) -> str:
        """The approved pack's text, then the labelled journal section (when any matched)."""
        if not self.journal:
            return self.text
        pack = self.text.rstrip("\n") + "\n\n" if self.text else ""
        return pack + journal_section(self.journal)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    id: str
    key: str
    type: str
    scope: str
    tier: str
    title: str
    score: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class RouteEntry(SearchHit):
    """One memory a task routes to, in load order, with why it was routed."""

    reason: str
