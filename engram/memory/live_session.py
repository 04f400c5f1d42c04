"""Which live session a write without ``session_id`` belongs to (seed 003, "Write tools").

An explicit ``session_id`` is authoritative. When a write omits it, the directory the writer
runs in only *narrows* the live, non-manual sessions of the already resolved project:

- a session whose local runtime lease is valid (not expired, well-formed) wins over unleased
  rows of the same directory; every live leased session stays a candidate;
- expired, malformed or otherwise invalid leases exclude their session;
- only when no live lease exists do unleased sessions count, and only if their latest
  activity (newest observation, else ``started_at``) is within seven days.

Exactly one candidate: the write attaches to it. None: the project's manual-save session
(``None`` here). Several: ``memory.live_session_ambiguous`` — never a pick by recency.
Selection is read-only: it never ends, renews or reopens a session. It runs after the
project was resolved, so a repository that must be confirmed first (``project.unconfirmed``)
is refused before any session is looked at.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from engram.errors import EngramError
from engram.memory.clock import STAMP_FORMAT, utc_now
from engram.memory.save import default_session_id
from engram.store import sessions
from engram.store.db import Store

UNLEASED_WINDOW = timedelta(days=7)
MANUAL_PREFIX = default_session_id("")


def _moment(value: str | None) -> datetime | None:
    try:
        return datetime.strptime((value or "").strip(), STAMP_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None


def live_session_for(
    store: Store,
    *,
    project: str,
    directories: Iterable[str],
    now: datetime | None = None,
) -> str | None:
    """The one live session of ``project`` started in one of ``directories`` (see module).

    Raises:
        EngramError: ``memory.live_session_ambiguous`` when several sessions qualify.
    """
    moment = now or utc_now()
    found: list[str] = []
    with store.read() as conn:
        for folder in dict.fromkeys(d for d in directories if d):
            rows = sessions.live_in_directory(
                conn, project=project, directory=folder, manual_prefix=MANUAL_PREFIX
            )
            found.extend(_candidates(rows, moment))
    candidates = list(dict.fromkeys(found))
    if len(candidates) > 1:
        raise EngramError(
            "memory.live_session_ambiguous",
            f"{len(candidates)} live sessions of project {project!r} run in this directory "
            f"({', '.join(candidates)}); the write was not made",
            "pass session_id, end the other sessions (mem_session_end), or save with "
            f"`engram save TITLE CONTENT --project {project}`",
            project=project,
            sessions=candidates,
        )
    return candidates[0] if candidates else None


def _candidates(rows: list[tuple[str, str | None, str]], moment: datetime) -> list[str]:
    """One directory's candidates: live leases first, else recently active unleased rows."""
    leased = []
    for sid, lease, _ in rows:
        until = _moment(lease)
        if until is not None and until > moment:
            leased.append(sid)
    if leased:
        return leased
    recent = []
    for sid, lease, activity in rows:
        if lease is not None and lease.strip():
            continue  # expired, malformed or invalid leases never count
        active = _moment(activity)
        if active is not None and moment - active <= UNLEASED_WINDOW:
            recent.append(sid)
    return recent
