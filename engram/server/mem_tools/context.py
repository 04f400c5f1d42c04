"""What every ``mem_*`` tool shares: the open store, call-time project resolution, answers.

Project resolution happens at call time, never at start-up (seed 003, "MCP Project
Resolution"):

- read tools: an explicit ``project`` must be a project the store knows; else the process
  override (``--project`` / ``ENGRAM_PROJECT``, also checked against the store); else detection
  from the working directory. Unknown names fail with ``available_projects``.
- write tools: a validated explicit project (known to the store, the session's project, the
  nearest ``.engram/config.json``, or an ambiguity recovery choice), then the session's project,
  then the process override, then detection. An ambiguous directory fails with
  ``available_projects`` and a five-minute ``recovery_token`` bound to this process.

The answer's ``data`` is the seed's envelope: ``{project, project_source, project_path, result}``.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram.errors import EngramError
from engram.memory import project as projects_id
from engram.memory.detection_cache import REMEMBERED, working_directory
from engram.memory.live_session import live_session_for
from engram.memory.project import ProjectDetection
from engram.memory.project_checks import (
    check_choice_collision,
    check_explicit_collision,
    similar_project_warning,
)
from engram.server.envelope import ToolOutcome
from engram.server.options import current_options
from engram.store.db import Store
from engram.store.records import replace

RECOVERY_TTL_S = 300.0
USER_SELECTED = "user_selected_after_ambiguous_project"


@dataclass
class _Recovery:
    session_id: str
    cwd: str
    candidates: tuple[str, ...]
    expires: float


@dataclass
class ToolState:
    """Process-wide state of the ``mem_*`` tools: the store and process-local memory.

    Args:
        recoveries: ambiguity recovery tokens issued by this process.
        prompts: the latest prompt id saved per (project, session) — the prompt context
            ``mem_save(capture_prompt=true)`` reports alongside the observation.
    """

    _store: Store | None = None
    recoveries: dict[str, _Recovery] = field(default_factory=dict)
    prompts: dict[tuple[str, str], int] = field(default_factory=dict)

    def store(self) -> Store:
        """The store, opened on first use (never at start-up, so a bad data dir is a tool error)."""
        if self._store is None:
            self._store = Store.open()
        return self._store


STATE = ToolState()


def cwd() -> Path:
    """The directory detection starts from: the server process's working directory
    (``project.cwd_missing`` once it was deleted)."""
    return Path(working_directory())


def known_projects() -> list[str]:
    """Every project the store has rows for (a full scan: used for error answers only)."""
    from engram.memory.projects import list_projects

    return [p.name for p in list_projects(STATE.store())]


def is_known_project(name: str) -> bool:
    """Whether any observation, session or prompt carries ``name`` (indexed, per call)."""
    from engram.memory.projects import is_known_project as known

    return known(STATE.store(), name)


def require_known_project(name: str) -> None:
    """Refuse a project the store has never seen, listing ``available_projects``."""
    if not is_known_project(name):
        projects_id.require_known(name, known_projects())


def read_project(explicit: str | None) -> ProjectDetection:
    """The project a read tool works on (explicit, then process override, then cwd)."""
    named = explicit if explicit is not None else current_options().project
    if named is not None:
        detection = projects_id.resolve_project(named, cwd())
        require_known_project(detection.project)
        if explicit is None:
            detection = _with_source(detection, "process_override")
        return detection
    detection = REMEMBERED.detect()
    projects_id.require_single(detection)
    return require_bound(detection)


def require_bound(detection: ProjectDetection) -> ProjectDetection:
    """A detected project, if this repository is bound to it (``project.unconfirmed``)."""
    from engram.memory.project_binding import untrusted_error

    store = STATE.store()
    if not REMEMBERED.is_trusted(store, store.folder, detection):
        raise untrusted_error(detection)
    return detection


def write_project(
    explicit: str | None,
    session_id: str | None = None,
    choice_reason: str | None = None,
    recovery_token: str | None = None,
) -> ProjectDetection:
    """The project a write tool works on; an unbacked explicit name never creates a bucket.

    A project the store has never seen that looks like an existing one carries the
    similar-project warning (the write still happens).
    """
    detection = _write_project(explicit, session_id, choice_reason, recovery_token)
    return with_similar_warning(detection)


def with_similar_warning(detection: ProjectDetection) -> ProjectDetection:
    """``detection`` with the similar-project warning added when its project is new."""
    similar = similar_project_warning(STATE.store(), detection.project)
    if similar is None:
        return detection
    warning = f"{detection.warning}; {similar}" if detection.warning else similar
    return replace(detection, warning=warning)


def session_or_live(session_id: str | None, detection: ProjectDetection) -> str | None:
    """``session_id`` when the call names one, else the one live session of the detected
    project started in this directory (None: the manual-save session), see
    :mod:`engram.memory.live_session`."""
    if session_id is not None and str(session_id).strip():
        return session_id
    return live_session_for(
        STATE.store(),
        project=detection.project,
        directories=(detection.path or "", detection.cwd or "", str(cwd())),
    )


def _write_project(
    explicit: str | None,
    session_id: str | None,
    choice_reason: str | None,
    recovery_token: str | None,
) -> ProjectDetection:
    here = cwd()
    session_project = _session_project(session_id)
    if explicit is not None:
        detection = projects_id.resolve_project(explicit, here)
        name = detection.project
        if session_project is not None and session_project not in ("", name):
            raise EngramError(
                "project.session_mismatch",
                f"session {session_id!r} belongs to project {session_project!r}, not {name!r}",
                "drop the project argument, or use a session of that project",
                session_project=session_project,
                project=name,
            )
        backing = _backed(name, session_project, here, session_id, choice_reason, recovery_token)
        if backing is None:
            known = known_projects()
            raise EngramError(
                "project.unknown",
                f"unknown project {name!r}: no stored memories, session or config name it",
                "use a known project (see available_projects), or run `engram init NAME` in it",
                available_projects=known,
            )
        if choice_reason == USER_SELECTED:
            check_choice_collision(name, here)
        if backing == "bucket":
            check_explicit_collision(explicit)
        return detection
    if session_project:
        return ProjectDetection(session_project, "session", cwd=str(here))
    override = current_options().project
    if override is not None:
        return _with_source(projects_id.resolve_project(override, here), "process_override")
    detection = REMEMBERED.detect()
    if detection.source == "ambiguous":
        raise _ambiguous(detection, session_id or "")
    return require_bound(detection)


def _backed(
    name: str,
    session_project: str | None,
    here: Path,
    session_id: str | None,
    choice_reason: str | None,
    token: str | None,
) -> str | None:
    """What backs an explicit project: ``bucket`` (store, session or config), ``recovery``
    (the user's choice after an ambiguity), or None."""
    if name == session_project or is_known_project(name):
        return "bucket"
    detection = REMEMBERED.detect(here)
    if detection.source == "config" and detection.project == name:
        return "bucket"
    if choice_reason == USER_SELECTED and detection.source == "ambiguous":
        _recovery_allows(token, name, session_id or "", detection)
        return "recovery"
    return None


def _recovery_allows(
    token: str | None, name: str, session_id: str, detection: ProjectDetection
) -> bool:
    recovery = STATE.recoveries.get(token or "")
    if recovery is None or recovery.expires < time.monotonic():
        raise EngramError(
            "project.recovery_expired",
            "the recovery_token is unknown or expired (tokens last five minutes, in one process)",
            "call the tool again without project to get a fresh recovery_token",
        )
    if (
        recovery.session_id != session_id
        or recovery.cwd != detection.cwd
        or recovery.candidates != detection.available_projects
        or name not in recovery.candidates
    ):
        raise EngramError(
            "project.recovery_mismatch",
            f"{name!r} is not one of the projects offered for this session and directory",
            "pick exactly one of available_projects from the ambiguous_project error",
            available_projects=list(recovery.candidates),
        )
    return True


def _ambiguous(detection: ProjectDetection, session_id: str) -> EngramError:
    token = secrets.token_urlsafe(16)
    now = time.monotonic()
    STATE.recoveries = {k: r for k, r in STATE.recoveries.items() if r.expires > now}
    STATE.recoveries[token] = _Recovery(
        session_id, detection.cwd, detection.available_projects, now + RECOVERY_TTL_S
    )
    return EngramError(
        "project.ambiguous",
        "this directory holds several projects "
        f"({', '.join(detection.available_projects)}); the write was not made",
        "ask the user which project, then retry with project=<one of available_projects>, "
        f"project_choice_reason={USER_SELECTED} and this recovery_token",
        available_projects=list(detection.available_projects),
        recovery_token=token,
    )


def _session_project(session_id: str | None) -> str | None:
    from engram.memory.sessions import session_project

    return session_project(STATE.store(), session_id)


def _with_source(detection: ProjectDetection, source: str) -> ProjectDetection:
    return ProjectDetection(
        detection.project, source, detection.path, detection.cwd, warning=detection.warning
    )


def answer(
    detection: ProjectDetection | None, text: str, result: Any, warnings: Any = ()
) -> ToolOutcome:
    """A tool's outcome in the seed's envelope, the detection warning in diagnostics.

    ``result`` stays as the tool made it (records, models): the envelope turns the whole
    ``data`` into JSON once, when the answer is written (:func:`~engram.server.envelope.
    success_result`)."""
    diagnostics = [str(w) for w in warnings if w]
    data: dict[str, Any] = {"result": result}
    if detection is not None:
        data = {
            "project": detection.project,
            "project_source": detection.source,
            "project_path": detection.path,
            **data,
        }
        if detection.warning:
            diagnostics.insert(0, detection.warning)
    return ToolOutcome(text, data, diagnostics)


def to_dicts(items: Any) -> list[Any]:
    """``to_dict()`` of each record in ``items``."""
    return [item.to_dict() for item in items]
