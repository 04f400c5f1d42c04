"""Runtime sessions of the local server (``POST /sessions``): ownership, leases, resume.

- ``ownership_mode`` is ``shared`` (default) or ``project_owned``. A ``project_owned``
  registration never reuses a session whose persisted project is another one
  (``memory.session_project_conflict``, nothing changed); a shared one keeps the old,
  compatible behaviour: it renews the session and adopts a blank project.
- Every successful create or renewal sets a local 30-minute ``runtime_lease_expires_at``.
  The lease is liveness evidence only: never synced or exported, and it never changes the
  session's identity.
- An ended session is never reopened: without ``resume`` it is ``memory.session_already_ended``.
  With ``resume``, an ended root continues in ``<root>:resume:N``: the lowest numeric live
  continuation is renewed, else the next ordinal after the highest existing one (from 2) is
  created. It all happens in one write transaction, so concurrent callers converge on one
  live continuation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from engram.errors import EngramError
from engram.identifiers import id_problem
from engram.memory.clock import stamp, stamp_after, utc_now
from engram.store import sessions
from engram.store.db import Store
from engram.store.records import Session

OWNERSHIP_MODES = ("shared", "project_owned")
LEASE = timedelta(minutes=30)
RESUME_MARK = ":resume:"
FIRST_CONTINUATION = 2


@dataclass(frozen=True, slots=True)
class Registration:
    """The outcome of registering a runtime session.

    Attributes:
        id: the effective session id (a continuation's id when one was used).
        created: False when an existing live session was renewed.
        lease_expires_at: the new ``runtime_lease_expires_at``.
        resumed_from: the ended root id when a continuation was used, else None.
    """

    id: str
    created: bool
    lease_expires_at: str
    resumed_from: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The seed's acknowledgement: ``{id, status: "created"}`` (+ ``resumed_from``)."""
        data: dict[str, Any] = {"id": self.id, "status": "created"}
        if self.resumed_from is not None:
            data["resumed_from"] = self.resumed_from
        return data


def check_ownership_mode(mode: str | None) -> str:
    """The ownership mode, ``shared`` when omitted or blank.

    Raises:
        EngramError: ``memory.bad_ownership_mode`` for any other value.
    """
    if mode is None or not mode.strip():
        return "shared"
    if mode not in OWNERSHIP_MODES:
        raise EngramError(
            "memory.bad_ownership_mode",
            f"unknown ownership_mode {mode!r}",
            "use `shared` (default) or `project_owned`",
        )
    return mode


def register_session(
    store: Store,
    session_id: str,
    *,
    project: str,
    directory: str = "",
    ownership_mode: str | None = None,
    resume: bool = False,
    now: datetime | None = None,
) -> Registration:
    """Create or renew a runtime session (see the module docstring).

    Raises:
        EngramError: ``memory.session_id_required``, ``memory.bad_ownership_mode``,
            ``memory.session_project_conflict``, ``memory.session_already_ended``.
    """
    mode = check_ownership_mode(ownership_mode)
    sid = session_id.strip()
    if not sid:
        raise EngramError(
            "memory.session_id_required", "a session id is required", "pass a non-empty id"
        )
    problem = id_problem(sid)
    if problem is not None:
        raise EngramError(
            "memory.invalid_session_id",
            f"session id {sid[:40]!r} {problem}",
            "pass the host's session id: at most 256 characters, no control characters",
        )
    moment = now or utc_now()
    with store.write() as conn:
        existing = sessions.get(conn, sid)
        resumed_from = None
        if existing is not None and existing.ended_at is not None:
            if not resume:
                raise _already_ended(sid)
            _check_owner(existing, project, mode)
            resumed_from = sid
            existing = _live_continuation(conn, sid)
            sid = existing.id if existing is not None else _next_continuation(conn, sid)
        if existing is not None:
            _check_owner(existing, project, mode)
            if not existing.project:
                sessions.adopt_project(conn, sid, project)
        else:
            sessions.create(
                conn,
                sid,
                project=project,
                directory=directory,
                now=stamp(moment),
                ownership_mode=mode,
            )
        until = stamp_after(moment, LEASE)
        sessions.renew_lease(conn, sid, until=until)
    return Registration(sid, existing is None, until, resumed_from)


def _check_owner(session: Session, project: str, mode: str) -> None:
    if mode != "project_owned" or not session.project.strip() or session.project == project:
        return
    raise EngramError(
        "memory.session_project_conflict",
        f"session {session.id!r} belongs to project {session.project!r}, not {project!r}",
        "register a new session id for this project",
        session_id=session.id,
        owner_project=session.project,
        requested_project=project,
    )


def _already_ended(session_id: str) -> EngramError:
    return EngramError(
        "memory.session_already_ended",
        f"session {session_id!r} has already ended and cannot be reopened",
        "start a new session id, or register with resume: true to continue it",
        session_id=session_id,
    )


def numbered_continuations(conn: Any, root: str) -> dict[int, Session]:
    """Continuations of ``root`` keyed by their numeric suffix (other suffixes ignored)."""
    found: dict[int, Session] = {}
    prefix = root + RESUME_MARK
    for session in sessions.continuations(conn, root):
        suffix = session.id[len(prefix) :]
        if suffix.isascii() and suffix.isdigit():
            found[int(suffix)] = session
    return found


def _live_continuation(conn: Any, root: str) -> Session | None:
    ordinals = numbered_continuations(conn, root)
    live = sorted(n for n, s in ordinals.items() if s.ended_at is None)
    return ordinals[live[0]] if live else None


def _next_continuation(conn: Any, root: str) -> str:
    ordinals = numbered_continuations(conn, root)
    ordinal = max([FIRST_CONTINUATION - 1, *ordinals]) + 1
    return f"{root}{RESUME_MARK}{ordinal}"


def session_lease(store: Store, session_id: str) -> str | None:
    """A session's local runtime lease expiry (None when it never had one)."""
    with store.read() as conn:
        return sessions.lease_of(conn, session_id)
