"""What a store-backed command needs before it runs: the open store and the project it is for.

Precedence for the project (the same on every surface): ``--project`` on the command, then
``ENGRAM_PROJECT``, then detection from the working directory. ``--all`` selects every project
and cannot be combined with ``--project``. Read commands refuse a named project the store has
never seen (listing the ones it has) instead of silently returning nothing.

The store and memory layers are imported inside the functions: ``engram --help`` must answer
without touching them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from engram.cli.output import warn

if TYPE_CHECKING:
    from engram.memory.project import ProjectDetection
    from engram.store.db import Store


def open_store(*, reading: bool = False) -> Store:
    """The store in ``ENGRAM_DATA_DIR`` (else ``~/.engram``), created and migrated if needed.

    ``reading``: a read command; where no store exists yet it reads an empty one and creates
    nothing on disk.
    """
    from engram.store.db import Store

    return Store.open_for_reading() if reading else Store.open()


def detect(project: str | None) -> ProjectDetection:
    """Resolve ``--project`` / ``ENGRAM_PROJECT`` / cwd, printing any normalization warning."""
    from engram.memory.project import resolve_project

    detection = resolve_project(project, Path.cwd())
    warn(detection.warning)
    return detection


def read_project(store: Store, project: str | None, all_projects: bool) -> str | None:
    """The project a read command is for, or None for ``--all``.

    Raises:
        typer.BadParameter: ``--project`` combined with ``--all`` (a usage error, exit 2).
        EngramError: ``project.unknown`` for a named project the store has never seen;
            ``project.ambiguous`` when the cwd holds several repositories.
    """
    from engram.memory.project import require_known_project, require_single

    if all_projects:
        if project is not None:
            raise typer.BadParameter("use either --project or --all, not both")
        return None
    detection = detect(project)
    name = require_single(detection)
    if detection.source in {"explicit", "process_override"}:
        require_known_project(store, name)
    return name


def write_project(store: Store, project: str | None) -> str:
    """The project a write goes to; warns when it is new and looks like an existing one."""
    from engram.memory.project import known_project_names, require_single, similar_projects

    name = require_single(detect(project))
    known = known_project_names(store)
    if name not in known:
        lookalikes = similar_projects(name, known)
        if lookalikes:
            warn(
                f"project {name!r} is new; similar existing projects: {', '.join(lookalikes)} "
                "(pass --project to pick one)"
            )
    return name
