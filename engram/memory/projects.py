"""Projects as the store sees them: the list with counts, stats, and merging name variants.

By default a merge only joins names that are spellings of the same project — equal once case,
outer whitespace and ``-``/``_`` separators are ignored (``Foo_Bar``, ``foo-bar``, ``foobar``) —
and refuses unrelated names; the CLI's explicit merge (``any_names``) folds any existing project
into another. A dry run reports what would move and changes nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from engram.errors import EngramError
from engram.store import projects
from engram.store.db import Store
from engram.store.project_names import project_exists
from engram.store.projects import MoveCounts, ProjectCounts


def list_projects(store: Store) -> list[ProjectCounts]:
    """Every project with observation, session and prompt counts, most observations first."""
    with store.read() as conn:
        return projects.list_with_counts(conn)


def is_known_project(store: Store, name: str) -> bool:
    """Whether any observation (even soft-deleted), session or prompt carries ``name``
    (indexed existence probes: every explicit write asks this, so it never counts rows)."""
    with store.read() as conn:
        return project_exists(conn, name)


@dataclass(frozen=True, slots=True)
class Stats:
    """Counts for one project (or every project when ``project`` is None)."""

    project: str | None
    sessions: int
    observations: int
    prompts: int
    pinned: int
    relations: int
    projects: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        data = asdict(self)
        data["projects"] = list(self.projects)
        return data


def stats(store: Store, *, project: str | None = None) -> Stats:
    """Memory statistics: sessions, live observations, prompts, pins, relations, project names."""
    from engram.store.project_names import distinct_names

    with store.read() as conn:
        totals = projects.totals(conn, project)
        # Names from an index walk: listing them with counts reads every row (seconds at 1M).
        names = distinct_names(conn)
    return Stats(
        project,
        totals.sessions,
        totals.observations,
        totals.prompts,
        totals.pinned,
        totals.relations,
        tuple(names),
    )


def variant_key(name: str) -> str:
    """What two spellings of one project share: casefolded, trimmed, without ``-``/``_``/spaces."""
    return "".join(ch for ch in name.strip().casefold() if ch not in "-_ ")


@dataclass(frozen=True, slots=True)
class MergeReport:
    """A merge plan (``applied`` False) or its outcome, per source name."""

    target: str
    applied: bool
    moves: dict[str, MoveCounts] = field(default_factory=dict)

    @property
    def total(self) -> MoveCounts:
        """Rows moved (or to move) across every source."""
        values = list(self.moves.values())
        return MoveCounts(
            sum(m.observations for m in values),
            sum(m.sessions for m in values),
            sum(m.prompts for m in values),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "target": self.target,
            "applied": self.applied,
            "moves": {name: asdict(counts) for name, counts in self.moves.items()},
            "total": asdict(self.total),
        }


def merge_projects(
    store: Store,
    sources: list[str],
    target: str,
    *,
    apply: bool = False,
    any_names: bool = False,
) -> MergeReport:
    """Move every row of each source project name to ``target`` (dry run unless ``apply``).

    By default only spelling variants of ``target`` may be merged (the agent tool's rule).
    With ``any_names`` (the CLI's explicit merge) any existing project may be folded into any
    other existing project; a target that does not exist yet is then accepted only when it is
    a spelling variant of every source. Rows move with plain updates, so the sync journal
    records each move like any other write.

    Raises:
        EngramError: ``memory.merge_bad_names`` (no source, blank target, a source equal to
            the target, or an unrelated name without ``any_names``),
            ``memory.merge_reserved_target`` (``inbox`` or a spelling of it) and
            ``memory.unknown_project`` (a source, or with ``any_names`` an unrelated target,
            with no rows). Nothing changes when any name is refused.
    """
    target = target.strip()
    names = list(dict.fromkeys(s.strip() for s in sources if s.strip()))
    _check_names(names, target, any_names=any_names)
    with store.write() as conn:
        known = set(projects.known_names(conn))
        planned = {name: projects.counts_for(conn, name) for name in names}
        for name, counts in planned.items():
            if name not in known and counts == MoveCounts(0, 0, 0):
                raise _unknown(name, known)
        unrelated = any(variant_key(name) != variant_key(target) for name in names)
        if (
            unrelated
            and target not in known
            and projects.counts_for(conn, target) == MoveCounts(0, 0, 0)
        ):
            raise _unknown(target, known)
        if apply:
            planned = {name: projects.move(conn, name, target) for name in planned}
    return MergeReport(target, apply, planned)


def _check_names(names: list[str], target: str, *, any_names: bool) -> None:
    """Refuse a merge whose names are missing, reserved, identical or (strictly) unrelated."""
    if not target or not names:
        raise EngramError(
            "memory.merge_bad_names",
            "a merge needs at least one source name and a target name",
            "name the project to merge away (--from, or `from`) and the one to keep (--to, or `to`)",
        )
    if variant_key(target) == "inbox":
        raise EngramError(
            "memory.merge_reserved_target",
            f"{target!r} is the reserved inbox project and never a merge target",
            "merge into another project instead",
            target=target,
        )
    for name in names:
        if name == target:
            raise EngramError(
                "memory.merge_bad_names",
                f"{name!r} is both the source and the target",
                "name two different projects",
                source=name,
                target=target,
            )
        if not any_names and variant_key(name) != variant_key(target):
            raise EngramError(
                "memory.merge_bad_names",
                f"{name!r} is not a spelling variant of {target!r}",
                "merge only case, whitespace or -/_ separator variants of one project",
                source=name,
                target=target,
            )


def _unknown(name: str, known: set[str]) -> EngramError:
    """The error for a merge name that no row carries, listing the names in use."""
    listing = ", ".join(sorted(known)) or "none yet"
    return EngramError(
        "memory.unknown_project",
        f"no project named {name!r} (known: {listing})",
        "run `engram projects list` to see the names in use",
        project=name,
        available_projects=sorted(known),
    )
