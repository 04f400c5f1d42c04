"""Checks a write makes about the project name it is about to use (seed 003, "MCP Project
Resolution" and "Project Name Normalization").

- **Similar-project warning**: writing to a project the store has never seen, when an existing
  project looks like a variant of it (case, separators, a typo), warns — the write still
  happens, the agent learns it may have meant the existing one.
- **Name collision** (``project.name_collision``): an explicitly named project whose raw
  spelling collapses (``foo--bar`` → ``foo-bar``) into a bucket that already exists is refused
  rather than silently merged into it; so is an ambiguity-recovery choice when several offered
  names collapse into the same bucket.
"""

from __future__ import annotations

import os
from pathlib import Path

from engram.errors import EngramError
from engram.memory.project import (
    child_name,
    git_children,
    known_project_names,
    normalize_project_name,
    similar_projects,
)
from engram.memory.projects import is_known_project
from engram.store.db import Store


def similar_project_warning(store: Store, name: str) -> str | None:
    """The warning for a write to a new project ``name`` that resembles existing ones."""
    if is_known_project(store, name):
        return None
    lookalikes = similar_projects(name, known_project_names(store))
    if not lookalikes:
        return None
    return (
        f"project {name!r} is new; similar existing projects: {', '.join(lookalikes)} "
        "(if you meant one of them, pass it as project)"
    )


def _collapsed(raw: str, name: str) -> bool:
    """Whether normalization did more than lowercase and trim (it collapsed separators)."""
    return raw.strip().lower() != name


def check_explicit_collision(raw: str) -> None:
    """Refuse an explicit ``raw`` name that collapses into an existing bucket (the caller has
    found that bucket).

    Raises:
        EngramError: ``project.name_collision``.
    """
    name = normalize_project_name(raw).name
    if _collapsed(raw, name):
        raise EngramError(
            "project.name_collision",
            f"project {raw!r} collapses into the existing project {name!r}; nothing was written",
            f"pass project={name!r} to write there, or rename the project so the names differ",
            project=raw,
            colliding_project=name,
        )


def check_choice_collision(choice: str, cwd: Path) -> None:
    """Refuse an ambiguity-recovery choice when several repositories below ``cwd`` collapse
    into its bucket (the ambiguity list shows them as one name).

    Raises:
        EngramError: ``project.name_collision``.
    """
    bucket = normalize_project_name(choice).name
    same = sorted(
        os.path.basename(child) for child in git_children(cwd) if child_name(child) == bucket
    )
    if len(same) > 1:
        raise EngramError(
            "project.name_collision",
            f"the repositories {', '.join(same)} all collapse into project {bucket!r}; "
            "nothing was written",
            "rename or disambiguate the colliding projects (`engram init NAME` in one of them), "
            "then retry",
            project=choice,
            colliding_repositories=same,
        )
