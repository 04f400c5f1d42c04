"""The projects a repository's ``.engram/`` chunks may write: ``engram sync --import``'s gate.

Anyone with push access to a repository can add a chunk to it, so a repository is trusted
only for the projects bound to its origin in ``project-bindings.json`` (the same bindings the
hooks use, see :mod:`engram.memory.project_binding`) — or for a project the user names with
``--project`` and confirms, which binds it. An unbound repository gets nothing applied.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engram.errors import EngramError
from engram.memory.project_binding import (
    CHOSEN_SOURCES,
    bind,
    is_trusted,
    load_bindings,
    origin_of,
)
from engram.store.db import Store
from engram.sync.trust import TrustGate


@dataclass(frozen=True, slots=True)
class RepositoryTrust:
    """Where a repository's chunks come from and which projects it is trusted for."""

    origin: str
    projects: frozenset[str]

    def gate(self) -> TrustGate:
        """The gate the git importer applies chunks through."""
        return TrustGate.for_projects(self.projects, "git")


def repository_trust(store: Store, data_dir: str | os.PathLike[str], root: Path) -> RepositoryTrust:
    """The projects bound to the origin of the repository at ``root`` (a detected project
    used here for the first time is bound on the way, exactly as the hooks do)."""
    from engram.memory.project import detect_project

    detection = detect_project(root)
    origin = origin_of(detection)
    bound = {name for name, origins in load_bindings(data_dir).items() if origin in origins}
    chosen = detection.source in CHOSEN_SOURCES or detection.source == "ambiguous"
    if detection.project and not chosen and is_trusted(store, data_dir, detection):
        bound.add(detection.project)
    return RepositoryTrust(origin, frozenset(bound))


def confirm_project(
    data_dir: str | os.PathLike[str], trust: RepositoryTrust, project: str
) -> RepositoryTrust:
    """Bind ``project`` to the repository's origin (the user confirmed it); trusted for it only."""
    bind(data_dir, project, trust.origin)
    return RepositoryTrust(trust.origin, frozenset({project}))


def unconfirmed(trust: RepositoryTrust, project: str | None) -> EngramError:
    """The refusal for an import nobody confirmed (nothing was applied)."""
    if project is None:
        return EngramError(
            "sync.unconfirmed",
            f"this repository ({trust.origin}) is unconfirmed: it is not bound to any project,"
            " so none of its chunks were applied",
            "if you trust it for one project, run engram sync --import --project NAME --confirm",
        )
    return EngramError(
        "sync.unconfirmed",
        f"this repository ({trust.origin}) is unconfirmed for project {project!r}: it is not"
        " bound to it, so nothing was applied",
        f"if you trust it with {project!r}'s memories, run"
        f" engram sync --import --project {project} --confirm",
        project=project,
    )
