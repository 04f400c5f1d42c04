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
from engram.cloud.store import mutations, projects
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
    _refuse_lookalikes(name, projects.lock_new_names(conn))


def lock_pushed_project(conn: Conn, name: str) -> mutations.LockedProject:
    """The row of the project a push writes, locked until the transaction ends: an existing
    row in one round trip (its name is known: no look-alike check), else created, unless it
    is a variant of a known name (409 ``similar_project``, nothing written)."""
    locked = mutations.lock_existing_project(conn, name)
    if locked is not None:
        return locked
    _refuse_lookalikes(name, projects.lock_new_names(conn))
    return mutations.create_project(conn, name)


def create_pushed_project(conn: Conn, name: str) -> mutations.LockedProject | None:
    """A new project's row for a push that runs under a savepoint, made and locked in the
    round trip of the look-alike check's read; None when ``name`` is a variant of a known name,
    the row made all the same: the caller rolls back to its savepoint."""
    locked, known = mutations.create_project_reading_names(conn, name)
    return None if _lookalikes(name, known) else locked


def _lookalikes(name: str, known: set[str]) -> list[str]:
    """The ``known`` names (read under the new-project lock: two variants made at once, the
    second sees the first) that ``name`` would be a variant of; none when it is one of them."""
    return [] if name in known else variants_of(name, known)


def _refuse_lookalikes(name: str, known: set[str]) -> None:
    lookalikes = _lookalikes(name, known)
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
