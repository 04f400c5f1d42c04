"""A new cloud project may not be a variant of an existing one, so a grant reaches exactly one.

Grants compare names by :func:`engram.project_names.project_key` (case and separators
ignored). Were ``proj_a`` created beside ``proj-a``, a grant for one would reach the other
team's memories; so every path that creates a project (a push, a grant, an admin's pause)
first refuses a name that shares its key with an existing project or grant (409, the
similar-project message), and every request's project name is normalized the way the local
store normalizes it.
"""

from __future__ import annotations

from typing import Any

from engram.cloud.problems import CloudProblem
from engram.cloud.store import projects
from engram.cloud.store.db import Conn
from engram.project_names import (
    name_problem,
    normalized_name,
    similar_project_message,
    variants_of,
)


def project_name(value: Any) -> str:
    """A request's project, normalized like the local store's (400 ``project_required`` or
    ``invalid_project``)."""
    if not isinstance(value, str) or not value.strip():
        raise CloudProblem(400, "invalid_request", "project_required", "project is required")
    name = normalized_name(value)
    problem = name_problem(name)
    if problem is not None:
        raise CloudProblem(
            400, "invalid_request", "invalid_project", f"invalid project name {value!r}: {problem}"
        )
    return name


def require_not_a_variant(conn: Conn, name: str) -> None:
    """Refuse (409 ``similar_project``) creating ``name`` when an existing project or grant
    shares its key; an existing ``name`` itself passes."""
    if projects.is_known(conn, name):  # one index probe, not every name the server holds
        return
    known = projects.lock_new_names(conn)  # two variants made at once: the second sees the first
    lookalikes = variants_of(name, known)
    if lookalikes:
        raise CloudProblem(
            409,
            "policy",
            "similar_project",
            similar_project_message(name, lookalikes)
            + f"; {name!r} would share their grants, so it was not created — use "
            + " or ".join(repr(n) for n in lookalikes),
            similar_projects=lookalikes,
        )
