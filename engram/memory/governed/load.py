"""``engram_load``: a tiered pack of routed memory that never exceeds its token budget.

Walking the routed memories in load order, each gets its body when the body fits what is
left of the budget, else its one-line card when that fits, else it is omitted (its id is in
``omitted_ids``, fetchable with ``id``). Costs are :func:`estimate_tokens` of each rendered
part; the estimate is subadditive, so the joined pack fits too. Working notes render as cards
unless the session objective matches theirs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from engram.errors import EngramError
from engram.memory.governed.base import KnowledgeBase
from engram.memory.governed.journal import journal_matches
from engram.memory.governed.journal_fetch import fetch_journal, journal_id
from engram.memory.governed.models import LoadPack, Memory
from engram.memory.governed.prefs import get_rule_variant
from engram.memory.governed.routing import RoutedMemory, route_memories
from engram.memory.governed.tokens import estimate_tokens
from engram.store import governed as sql

DISCLOSURES = ("tiered", "cards", "bodies")
CARDS_HEADING = "Also relevant (fetch with engram_load id=...):\n"
OBJECTIVE_ENV = "ENGRAM_SESSION_OBJECTIVE"


def render_body(memory: Memory, variant: str) -> str:
    """A memory as loaded: heading plus body (or the active rule variant)."""
    text = memory.body
    if memory.type == "rule" and variant != "full" and variant in memory.variants:
        text = memory.variants[variant]
    working = memory.tier == "working" and memory.type != "note"
    tag = f"{memory.type}, note" if working else memory.type  # never "[note, note]"
    return f"## [{tag}] {memory.id}: {' '.join(memory.title.split())}\n{text.strip()}\n\n"


def _objective_matches(memory: Memory, objective: str) -> bool:
    wanted = " ".join(objective.split()).casefold()
    return bool(wanted) and " ".join(memory.objective.split()).casefold() == wanted


@dataclass
class _Packer:
    budget: int
    used: int = 0
    bodies: list[str] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)

    def fits(self, cost: int) -> bool:
        return self.used + cost <= self.budget

    def add_body(self, text: str) -> bool:
        cost = estimate_tokens(text)
        if not self.fits(cost):
            return False
        self.bodies.append(text)
        self.used += cost
        return True

    def add_card(self, line: str) -> bool:
        text = line + "\n"
        cost = estimate_tokens(text) + (0 if self.cards else estimate_tokens(CARDS_HEADING))
        if not self.fits(cost):
            return False
        self.cards.append(text)
        self.used += cost
        return True

    def text(self, header: str) -> str:
        cards = (CARDS_HEADING + "".join(self.cards)) if self.cards else ""
        return (header + "".join(self.bodies) + cards).rstrip("\n") + ("\n" if self.used else "")


def _check_args(kb: KnowledgeBase, budget_tokens: int | None, disclosure: str) -> int:
    if disclosure not in DISCLOSURES:
        raise EngramError(
            "governed.bad_disclosure",
            f"unknown disclosure {disclosure!r}",
            f"use one of: {', '.join(DISCLOSURES)}",
        )
    budget = kb.config.budget_tokens if budget_tokens is None else budget_tokens
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise EngramError(
            "governed.bad_budget",
            f"budget_tokens must be a whole number >= 0, got {budget_tokens!r}",
            "pass a token budget such as 1200",
        )
    return budget


def load(
    kb: KnowledgeBase,
    query: str = "",
    id: str | None = None,
    budget_tokens: int | None = None,
    disclosure: str = "tiered",
    full: bool = False,
    explain: bool = False,
    objective: str | None = None,
) -> LoadPack:
    """Route and return memory for a task.

    Args:
        query: the task in words ("" loads everything visible, as at session start).
        id: fetch one memory's body by id; ``budget_tokens`` has no effect then.
        budget_tokens: token budget of the pack (default ``load.budget_tokens``).
        disclosure: ``tiered`` (bodies, then cards), ``cards`` (cards only) or ``bodies``.
        full: route every visible memory, not only what the task matches.
        explain: add, per memory, why it routed and which tier it got.
        objective: the session objective (default ``$ENGRAM_SESSION_OBJECTIVE``).
    """
    if id is not None:
        return fetch(kb, id)
    budget = _check_args(kb, budget_tokens, disclosure)
    objective = os.environ.get(OBJECTIVE_ENV, "") if objective is None else objective
    kinds, routed = route_memories(kb, query, everything=full)
    variant = get_rule_variant(kb)
    packer = _Packer(budget)
    header = f"# Engram memory for: {' '.join(query.split()) or 'this project'}\n\n"
    if not packer.add_body(header):
        header = ""
    else:
        packer.bodies.clear()
    tiers: dict[str, list[RoutedMemory]] = {"body": [], "card": [], "omitted": []}
    for item in routed:
        tiers[_place(packer, item.memory, disclosure, objective, variant)].append(item)
    text = packer.text(header)
    with sql.immediate(kb.conn):
        sql.bump_counter(kb.conn, [r.memory.rowid for r in tiers["body"]], "usage_count")
    journal = journal_matches(kb, query) if query.strip() else []
    return LoadPack(
        text=text,
        selected_keys=tuple(r.memory.key for r in routed),
        body_keys=tuple(r.memory.key for r in tiers["body"]),
        card_ids=tuple(r.memory.id for r in tiers["card"]),
        omitted_ids=tuple(r.memory.id for r in tiers["omitted"]),
        tokens=estimate_tokens(text),
        budget_tokens=budget,
        kinds=kinds,
        explain=_explain(tiers) if explain else (),
        journal=tuple(journal),
        body_rowids=tuple(r.memory.rowid for r in tiers["body"]),
    )


def _place(packer: _Packer, memory: Memory, disclosure: str, objective: str, variant: str) -> str:
    wants_body = disclosure != "cards" and (
        memory.tier == "durable" or _objective_matches(memory, objective)
    )
    if wants_body and packer.add_body(render_body(memory, variant)):
        return "body"
    if disclosure != "bodies" and packer.add_card(memory.card()):
        return "card"
    return "omitted"


def _explain(tiers: dict[str, list[RoutedMemory]]) -> tuple[dict[str, Any], ...]:
    rows = [
        {
            "id": r.entry.id,
            "type": r.entry.type,
            "tier": tier,
            "reason": r.entry.reason,
            "score": r.entry.score,
        }
        for tier, items in tiers.items()
        for r in items
    ]
    return tuple(rows)


def fetch(kb: KnowledgeBase, memory_id: str) -> LoadPack:
    """One memory's body by id (durable first, then a working note); counted as a fetch."""
    row = sql.get_memory(kb.conn, kb.project, memory_id.strip())
    journal = journal_id(memory_id) if row is None else None
    if journal is not None:
        with sql.immediate(kb.conn):
            pack = fetch_journal(kb, journal)
        if pack is not None:
            return pack
    if row is None or (row["tier"] == "working" and str(row["valid_until"]) < kb.today()):
        raise EngramError(
            "governed.unknown_memory",
            f"no memory {memory_id!r} in project {kb.project}",
            "find ids with engram_search or engram_route",
        )
    memory = Memory.from_row(row)
    text = render_body(memory, get_rule_variant(kb)).rstrip("\n") + "\n"
    if memory.status == "superseded":
        text += f"(superseded by {memory.superseded_by})\n"
    with sql.immediate(kb.conn):
        sql.bump_counter(kb.conn, [memory.rowid], "fetch_count")
    return LoadPack(
        text=text,
        selected_keys=(memory.key,),
        body_keys=(memory.key,),
        card_ids=(),
        omitted_ids=(),
        tokens=estimate_tokens(text),
        budget_tokens=None,
    )


def index_cards(kb: KnowledgeBase) -> str:
    """``engram://index``: one card per visible memory, in load order of an empty task."""
    _, routed = route_memories(kb, "", everything=True)
    cards = [r.memory.card() for r in routed]
    return "\n".join(cards) + "\n" if cards else "(no governed memory yet)\n"


def most_used(kb: KnowledgeBase, limit: int) -> list[Memory]:
    """The ``limit`` visible memories used most (loads + fetches), ties by id."""
    if limit <= 0:
        return []
    return [Memory.from_row(r) for r in sql.top_by_usage(kb.conn, kb.project, kb.today(), limit)]
