"""Routing: classify a task into kinds by keyword rules, then pick memories in load order.

Rules always route. Other durable memories route when the task's words match them (FTS5,
bm25 with the title weighted most); unexpired working notes always route (as cards unless
the session objective matches). Load order: rules, then the types the task's first kind
cares about most, notes last; within a type, project before global, better match first,
then id. Nothing in the order depends on usage, so one query always routes the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from engram.memory.governed.base import KnowledgeBase
from engram.memory.governed.models import Memory, Route, RouteEntry
from engram.memory.governed.prefs import get_roles, role_allows
from engram.store import governed as sql
from engram.store.ranking import STOP_WORDS


def _kw(words: str) -> frozenset[str]:
    return frozenset(words.split())


_GENERAL = ("decision", "convention", "procedure", "gotcha", "context", "note")

# kind -> (keywords, type priority after rules). Order breaks ties between kinds.
TASK_KINDS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "debug": (
        _kw(
            "bug fix error crash fail failing failure broken traceback exception "
            "regression debug flaky hang leak"
        ),
        ("gotcha", "decision", "convention", "procedure", "context", "note"),
    ),
    "test": (
        _kw("test tests testing pytest coverage fixture assert mock e2e"),
        ("convention", "procedure", "gotcha", "decision", "context", "note"),
    ),
    "security": (
        _kw(
            "security secret secrets auth token password vulnerability permission "
            "credential credentials encrypt"
        ),
        ("gotcha", "decision", "convention", "procedure", "context", "note"),
    ),
    "release": (
        _kw("release deploy publish version ci pipeline tag changelog ship"),
        ("procedure", "convention", "decision", "gotcha", "context", "note"),
    ),
    "dependency": (
        _kw("dependency dependencies package packages install upgrade bump library"),
        ("decision", "procedure", "convention", "gotcha", "context", "note"),
    ),
    "refactor": (
        _kw("refactor rename cleanup restructure simplify extract split move"),
        ("convention", "decision", "gotcha", "procedure", "context", "note"),
    ),
    "review": (
        _kw("review pr audit inspect"),
        ("convention", "decision", "gotcha", "procedure", "context", "note"),
    ),
    "docs": (
        _kw("doc docs documentation readme document explain"),
        ("convention", "context", "decision", "procedure", "gotcha", "note"),
    ),
    "feature": (
        _kw("add implement build create feature new support introduce"),
        ("decision", "convention", "procedure", "gotcha", "context", "note"),
    ),
}


def task_terms(query: str) -> list[str]:
    """The words of a task worth matching: stopwords dropped unless nothing else is left."""
    terms = sql.fts_terms(query)
    return [t for t in terms if t not in STOP_WORDS] or terms


def _stems(words: list[str]) -> set[str]:
    out = set(words)
    for word in words:
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                out.add(word[: -len(suffix)])
    return out


def classify(query: str) -> tuple[str, ...]:
    """Task kinds of a query, most hits first; ``("general",)`` when no rule matches."""
    words = _stems(sql.fts_terms(query))
    hits = [(len(words & keywords), kind) for kind, (keywords, _) in TASK_KINDS.items()]
    order = list(TASK_KINDS)
    ranked = sorted((h for h in hits if h[0]), key=lambda h: (-h[0], order.index(h[1])))
    return tuple(kind for _, kind in ranked) or ("general",)


@dataclass(frozen=True, slots=True)
class RoutedMemory:
    """A routed memory with its entry (load.py needs the full memory to render it)."""

    memory: Memory
    entry: RouteEntry


def route_memories(
    kb: KnowledgeBase, query: str, everything: bool = False
) -> tuple[tuple[str, ...], list[RoutedMemory]]:
    """Kinds and routed memories in load order. ``everything`` routes every visible memory."""
    kinds = classify(query)
    priority = TASK_KINDS[kinds[0]][1] if kinds[0] in TASK_KINDS else _GENERAL
    active_roles = get_roles(kb)
    today = kb.today()
    scores = sql.fts_scores(kb.conn, kb.project, today, task_terms(query))
    everything = everything or not query.strip()
    routed: list[tuple[tuple[object, ...], RoutedMemory]] = []
    rows = (
        sql.list_visible(kb.conn, kb.project, today)
        if everything
        else sql.list_routable(kb.conn, kb.project, today, scores)
    )
    for row in rows:
        memory = Memory.from_row(row)
        if not role_allows(memory.roles, active_roles):
            continue
        matched = row["rowid"] in scores
        if memory.tier == "working":
            reason = "working note"
        elif memory.type == "rule":
            reason = "rule (always routed)"
        elif matched:
            reason = "matches the task"
        elif everything:
            reason = "all memories"
        else:
            continue
        score = round(-scores[row["rowid"]], 4) if matched else 0.0
        group = (
            -1
            if memory.type == "rule" and memory.tier == "durable"
            else (len(priority) if memory.tier == "working" else _rank(priority, memory.type))
        )
        order = (group, memory.scope != "project", -score, memory.id, memory.tier)
        entry = RouteEntry(
            memory.id,
            memory.key,
            memory.type,
            memory.scope,
            memory.tier,
            memory.title,
            score,
            reason,
        )
        routed.append((order, RoutedMemory(memory, entry)))
    routed.sort(key=lambda item: item[0])
    return kinds, [r for _, r in routed]


def _rank(priority: tuple[str, ...], memory_type: str) -> int:
    return priority.index(memory_type) if memory_type in priority else len(priority) - 1


def route(kb: KnowledgeBase, query: str) -> Route:
    """``engram_route``: classify a task and list the memories it routes to, in load order."""
    kinds, routed = route_memories(kb, query)
    return Route(query, kinds, tuple(r.entry for r in routed))
