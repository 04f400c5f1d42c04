"""Progressive disclosure: the observations just before and after one, in its session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.memory import checks
from engram.store import observations, sessions
from engram.store.db import Store
from engram.store.records import Observation, Session

DEFAULT_SPAN = 5
MAX_SPAN = 50


@dataclass(frozen=True, slots=True)
class Timeline:
    """An observation with its neighbours in the same session, oldest first."""

    focus: Observation
    before: tuple[Observation, ...]
    after: tuple[Observation, ...]
    session: Session | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "focus": self.focus.to_dict(),
            "before": [o.to_dict() for o in self.before],
            "after": [o.to_dict() for o in self.after],
            "session": self.session.to_dict() if self.session else None,
        }


def _span(value: int | None) -> int:
    if value is None or value < 0:
        return DEFAULT_SPAN
    return min(value, MAX_SPAN)


def timeline(
    store: Store,
    obs_id: int,
    *,
    before: int | None = DEFAULT_SPAN,
    after: int | None = DEFAULT_SPAN,
    project: str | None = None,
) -> Timeline:
    """Up to ``before``/``after`` (default 5, at most 50) neighbours of ``obs_id``.

    With ``project``, an observation owned by another project is not returned.

    Raises:
        EngramError: ``memory.not_found``.
    """
    with store.read() as conn:
        focus = observations.get(conn, obs_id)
        if focus is None or (project is not None and focus.project != project):
            raise checks.not_found(obs_id)
        if focus.session_id is None:
            return Timeline(focus, (), (), None)
        earlier, later = observations.session_neighbours(
            conn,
            session_id=focus.session_id,
            obs_id=obs_id,
            before=_span(before),
            after=_span(after),
        )
        session = sessions.get(conn, focus.session_id)
    same = focus.project
    return Timeline(
        focus,
        tuple(o for o in earlier if o.project == same),
        tuple(o for o in later if o.project == same),
        session,
    )
