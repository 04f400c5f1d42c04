"""Input checks shared by the memory operations, each raising a coded :class:`EngramError`."""

from __future__ import annotations

from engram.errors import EngramError
from engram.store.records import Observation

SCOPES = ("project", "personal", "global")
DEFAULT_TYPE = "manual"
# The observation types the CLI offers (agents may record others through mem_save).
TYPES = (
    "manual",
    "decision",
    "architecture",
    "bugfix",
    "pattern",
    "config",
    "discovery",
    "learning",
    "preference",
    "session_summary",
)


def owned_by(owner: str, project: str | None) -> bool:
    """Whether a row of project ``owner`` may be reached from ``project`` (None: any)."""
    return project is None or owner == project


def not_found(obs_id: int) -> EngramError:
    """The error for an observation id that does not exist (or was deleted)."""
    return EngramError(
        "memory.not_found",
        f"observation #{obs_id} does not exist",
        "search or list recent observations to find the right id",
        id=obs_id,
    )


def require_title(title: str | None) -> str:
    """The title, stripped; raises ``memory.empty_title`` when missing or whitespace-only."""
    if title is None or not title.strip():
        raise EngramError(
            "memory.empty_title",
            "a title is required (it was empty or whitespace)",
            "pass a short searchable title, e.g. 'Fixed N+1 query in UserList'",
        )
    return title.strip()


def require_content(content: str | None) -> str:
    """The content; raises ``memory.empty_content`` when missing or whitespace-only."""
    if content is None or not content.strip():
        raise EngramError(
            "memory.empty_content",
            "content is required (it was empty or whitespace)",
            "pass the memory's body: What / Why / Where / Learned",
        )
    return content


def check_scope(scope: str | None) -> str:
    """A valid scope (default ``project``); raises ``memory.bad_scope``."""
    value = (scope or "project").strip().lower()
    if value not in SCOPES:
        raise EngramError(
            "memory.bad_scope",
            f"unknown scope {scope!r}",
            f"use one of: {', '.join(SCOPES)}",
        )
    return value


def check_type(type_: str | None) -> str:
    """The observation type, trimmed and lowercased (default ``manual``)."""
    value = (type_ or "").strip().lower()
    return value or DEFAULT_TYPE


def check_owner(observation: Observation, expected_project: str | None) -> None:
    """Assert the caller's ``expected_project`` owns ``observation``.

    Raises:
        EngramError: ``memory.expected_project_required`` when missing or blank,
            ``project.invalid_name`` when malformed, ``memory.project_mismatch`` when another
            project owns the observation.
    """
    from engram.memory.project import normalize_project_name

    if expected_project is None or not expected_project.strip():
        raise EngramError(
            "memory.expected_project_required",
            "expected_project is required to change an observation",
            "pass the project you believe owns it (as shown by search or get)",
        )
    expected = normalize_project_name(expected_project).name
    if expected != observation.project:
        raise EngramError(
            "memory.project_mismatch",
            f"observation #{observation.id} belongs to {observation.project!r}, "
            f"not {expected!r}; nothing was changed",
            "check the id, or name the owning project (`--project` on the CLI, `expected_project` in MCP)",
            id=observation.id,
            owner_project=observation.project,
            expected_project=expected,
        )


def check_same_project(observation: Observation, project: str | None) -> None:
    """Refuse an update that names another project: ownership is immutable.

    Raises:
        EngramError: ``memory.project_immutable``; ``project.invalid_name``.
    """
    from engram.memory.project import normalize_project_name

    if project is None:
        return
    wanted = normalize_project_name(project).name
    if wanted != observation.project:
        raise EngramError(
            "memory.project_immutable",
            f"observation #{observation.id} belongs to {observation.project!r}; "
            f"it cannot be moved to {wanted!r} by an update",
            "save a new observation in the other project instead",
            owner_project=observation.project,
            requested_project=wanted,
        )
