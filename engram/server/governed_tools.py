"""What the governed ``engram_*`` tools run (their specs are in :mod:`engram.server.governed`).

Each tool is a thin adapter over :mod:`engram.memory.governed`: it builds the knowledge base for
this process's workspace, makes one call, and returns human text plus structured data. The
proposal tools hand their proposal to :mod:`engram.server.governed_approval`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.errors import EngramError
from engram.memory import governed as gm
from engram.memory.governed.models import SCOPES, TYPES
from engram.server import governed_approval as approval
from engram.server.envelope import ToolOutcome
from engram.server.governed_context import knowledge_base
from engram.server.registry import Param, ToolCall, ToolSpec

DURABLE_TYPES = tuple(t for t in TYPES if t != "note")


@dataclass(frozen=True)
class CandidatesParam(Param):
    """A list of candidate objects ({title, body, type?, scope?, key?, supersedes?, ...})."""

    def schema(self) -> dict[str, Any]:
        """An array of candidate objects."""
        item = {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "body": {"type": "string"},
                "type": {"type": "string", "enum": list(DURABLE_TYPES)},
                "scope": {"type": "string", "enum": list(SCOPES)},
                "key": {"type": "string"},
                "supersedes": {"type": "string"},
                "roles": {"type": "array", "items": {"type": "string"}},
                "variants": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["title", "body"],
        }
        return {"type": "array", "items": item, "description": self.description}

    def check(self, value: Any) -> Any:
        """A list of candidate dicts with string title and body."""
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self._bad("must be a list of candidate objects")
        return [_candidate(v, n) for n, v in enumerate(value, 1)]


@dataclass(frozen=True)
class ApproveParam(Param):
    """``"all"`` or a list of 1-based candidate numbers."""

    def schema(self) -> dict[str, Any]:
        """``"all"`` or an array of positive integers."""
        return {
            "description": self.description,
            "anyOf": [
                {"type": "string", "enum": ["all"]},
                {"type": "array", "items": {"type": "integer", "minimum": 1}},
            ],
        }

    def check(self, value: Any) -> Any:
        """Pass "all" or a list through; the memory layer checks the numbers."""
        if value == "all" or (isinstance(value, list) and all(isinstance(v, int) for v in value)):
            return value
        raise self._bad('must be "all" or a list of candidate numbers')


def _candidate(data: dict[str, Any], number: int) -> gm.Candidate:
    def text(name: str, default: str = "") -> str:
        value = data.get(name, default)
        if not isinstance(value, str):
            raise EngramError(
                "server.bad_argument",
                f"candidate {number}: {name!r} must be a string",
                "fix the candidate and call again",
            )
        return value

    roles = data.get("roles", [])
    variants = data.get("variants", {})
    if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
        raise EngramError("server.bad_argument", f"candidate {number}: roles must be strings", "")
    if not isinstance(variants, dict) or not all(isinstance(v, str) for v in variants.values()):
        raise EngramError(
            "server.bad_argument", f"candidate {number}: variants must map names to text", ""
        )
    return gm.Candidate(
        title=text("title"),
        body=text("body"),
        type=text("type", "convention"),
        scope=text("scope", "project"),
        key=text("key"),
        supersedes=text("supersedes"),
        roles=tuple(roles),
        variants=tuple(sorted(variants.items())),
    )


# --- read tools -----------------------------------------------------------------------------


def run_load(call: ToolCall) -> ToolOutcome:
    """engram_load."""
    pack = gm.load(
        knowledge_base(),
        call.get("query", ""),
        id=call.get("id"),
        budget_tokens=call.get("budget_tokens"),
        disclosure=call.get("disclosure", "tiered"),
        full=call.get("full", False),
        explain=call.get("explain", False),
    )
    text = pack.with_journal() or "(no governed memory routed to this task)"
    return ToolOutcome(text, pack.to_dict())


def run_route(call: ToolCall) -> ToolOutcome:
    """engram_route."""
    result = gm.route(knowledge_base(), call.get("query", ""))
    lines = [f"task kinds: {', '.join(result.kinds)}"] + [
        f"{n}. [{e.type}] {e.id} ({e.scope}) score {e.score} — {e.reason}"
        for n, e in enumerate(result.entries, 1)
    ]
    return ToolOutcome("\n".join(lines), result.to_dict())


def run_search(call: ToolCall) -> ToolOutcome:
    """engram_search."""
    kb = knowledge_base()  # resolves the workspace and reads the config: once per call
    hits = gm.search(
        kb,
        call.get("query", ""),
        limit=call.get("limit", 10),
        type=call.get("type"),
        scope=call.get("scope"),
    )
    lines = [f"{h.id} [{h.type}, {h.scope}] score {h.score}: {h.title}" for h in hits]
    journal = gm.journal_matches(kb, call.get("query", ""))
    if journal:
        lines += ["", gm.journal_section(journal).rstrip("\n")]
    data = {"entries": [h.to_dict() for h in hits], "journal": [m.to_dict() for m in journal]}
    return ToolOutcome("\n".join(lines) or "no matches", data)


def run_verify(call: ToolCall) -> ToolOutcome:
    """engram_verify."""
    report = gm.verify(knowledge_base())
    return ToolOutcome(report.text(), report.to_dict())


def run_status(call: ToolCall) -> ToolOutcome:
    """engram_status."""
    data = gm.status(knowledge_base())
    return ToolOutcome(gm.status_text(data), data)


# --- proposals, commit, switches, notes -----------------------------------------------------


async def run_save(call: ToolCall) -> Any:
    """engram_save: propose one candidate."""
    kb = knowledge_base()
    if approval.is_retry(call):
        return approval.finish_retry(call, kb)
    candidate = _candidate({k: v for k, v in call.arguments.items()}, 1)
    return await approval.ask(call, kb, gm.propose(kb, [candidate]))


async def run_save_session(call: ToolCall) -> Any:
    """engram_save_session: propose the given candidates or the journal's recent knowledge."""
    kb = knowledge_base()
    if approval.is_retry(call):
        return approval.finish_retry(call, kb)
    proposal = gm.propose_session(kb, call.get("candidates"), call.get("query_level", 1))
    return await approval.ask(call, kb, proposal)


async def run_note(call: ToolCall) -> Any:
    """engram_note: propose a working-tier note (one yes/cancel)."""
    kb = knowledge_base()
    if approval.is_retry(call):
        return approval.finish_retry(call, kb)
    proposal = gm.propose_note(
        kb,
        call.get("text", ""),
        call.get("objective", ""),
        call.get("type", "note"),
        call.get("scope", "project"),
    )
    return await approval.ask(call, kb, proposal)


def run_commit(call: ToolCall) -> ToolOutcome:
    """engram_commit."""
    outcome = gm.commit(
        knowledge_base(),
        call.get("approval_token", ""),
        call.get("approve", "all"),
        call.get("scope"),
    )
    return ToolOutcome(outcome.text, outcome.to_dict())


def run_set_role(call: ToolCall) -> ToolOutcome:
    """engram_set_role."""
    roles = gm.set_roles(knowledge_base(), call.get("roles", []))
    text = f"active roles: {', '.join(roles)}" if roles else "role filter cleared (all roles)"
    return ToolOutcome(text, {"roles": roles})


def run_set_rule_variant(call: ToolCall) -> ToolOutcome:
    """engram_set_rule_variant."""
    mode = gm.set_rule_variant(knowledge_base(), call.get("mode", "full"))
    return ToolOutcome(f"rule variant mode: {mode}", {"rule_variant": mode})


@dataclass(frozen=True)
class NoteSpec(ToolSpec):
    """engram_note carries readOnlyHint: false and no destructiveHint."""

    def annotations(self) -> dict[str, Any]:
        """The usual annotations without destructiveHint."""
        out = ToolSpec.annotations(self)
        out.pop("destructiveHint", None)
        return out
