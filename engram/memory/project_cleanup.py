"""Whole-project housekeeping: delete a project, prune empty ones, find name variants to merge.

- :func:`delete_project` removes the project's prompts, soft-deletes its observations (``hard``:
  removes them) and removes only the sessions nothing refers to any more.
- :func:`prune_projects` removes projects that hold no observation at all (their prompts and
  sessions), optionally only path-like names (``/`` or ``\\``).
- :func:`variant_groups` groups names that are spellings of one project, each with the name to
  keep (the one with most observations, then lowercase and hyphenated), for
  ``projects consolidate``.

Names are taken exactly as stored: legacy names that today's normalization would refuse can be
deleted, pruned and merged too.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from engram.errors import EngramError
from engram.memory.clock import stamp, utc_now
from engram.memory.projects import variant_key
from engram.store import observations, project_rows, projects, prompts
from engram.store.db import Store
from engram.store.removal import delete_empty_session

RESERVED = "inbox"


@dataclass(frozen=True, slots=True)
class ProjectRemoval:
    """What deleting (or pruning) one project did, or would do (``applied`` False)."""

    project: str
    hard: bool
    applied: bool
    observations: int
    prompts: int
    sessions: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def _require_project(conn: Any, name: str) -> None:
    known = projects.known_names(conn)
    if name not in known:
        raise EngramError(
            "project.unknown",
            f"no project named {name!r}",
            "see `engram projects list` for the names in use (exactly as listed)",
            available_projects=known,
        )


def delete_project(
    store: Store, name: str, *, hard: bool = False, apply: bool = True, now: datetime | None = None
) -> ProjectRemoval:
    """Delete ``name``: prompts go, observations are soft-deleted (``hard``: removed), and
    sessions go only when nothing refers to them any more. All or nothing.

    Raises:
        EngramError: ``project.unknown``.
    """
    when = stamp(now or utc_now())
    with store.write() as conn:
        _require_project(conn, name)
        obs = project_rows.observation_ids(conn, name, live_only=not hard)
        prompt_list = project_rows.prompt_ids(conn, name)
        sessions = project_rows.session_ids(conn, name)
        if not apply:
            return ProjectRemoval(name, hard, False, len(obs), len(prompt_list), 0)
        for obs_id in obs:
            _ = (
                observations.hard_delete(conn, obs_id)
                if hard
                else observations.soft_delete(conn, obs_id, when)
            )
        for prompt_id in prompt_list:
            prompts.delete(conn, prompt_id, when)
        gone = [s for s in sessions if delete_empty_session(conn, s) == "deleted"]
    return ProjectRemoval(name, hard, True, len(obs), len(prompt_list), len(gone))


def prunable_projects(store: Store, *, paths_only: bool = False) -> list[str]:
    """Projects with no observation at all (soft-deleted ones count as observations)."""
    with store.read() as conn:
        names = projects.known_names(conn)
        empty = [n for n in names if project_rows.observation_total(conn, n) == 0]
    return [n for n in empty if not paths_only or "/" in n or "\\" in n]


def prune_projects(
    store: Store, *, paths_only: bool = False, apply: bool = True
) -> list[ProjectRemoval]:
    """Remove every prunable project's prompts and sessions (a preview unless ``apply``)."""
    return [
        delete_project(store, name, hard=True, apply=apply)
        for name in prunable_projects(store, paths_only=paths_only)
    ]


@dataclass(frozen=True, slots=True)
class VariantGroup:
    """Names that spell one project: ``keep`` and the ``merge`` names to fold into it."""

    keep: str
    merge: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"keep": self.keep, "merge": list(self.merge)}


def variant_groups(store: Store) -> list[VariantGroup]:
    """Every group of two or more names with the same variant key (``inbox`` is never kept)."""
    with store.read() as conn:
        counts = {p.name: p.observation_count for p in projects.list_with_counts(conn)}
    groups: dict[str, list[str]] = {}
    for name in counts:
        groups.setdefault(variant_key(name), []).append(name)
    out = []
    for key, names in sorted(groups.items()):
        if len(names) < 2 or key == RESERVED:
            continue
        # Most observations; then lowercase; then hyphenated (acme-api over acme_api/acmeapi).
        keep = min(names, key=lambda n: (-counts[n], n != n.strip().lower(), -n.count("-"), n))
        out.append(VariantGroup(keep, tuple(sorted(n for n in names if n != keep))))
    return out
