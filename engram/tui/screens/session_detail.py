"""Session Detail: a session's facts, then its observations in the order they were recorded."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from engram.memory.browse import Page, is_active, session_observations
from engram.memory.clock import local_time
from engram.memory.sessions import get_session
from engram.store.records import Session
from engram.tui.observations import ObservationListScreen
from engram.tui.palette import ACTIVE_BADGE, GREEN, MAUVE, OVERLAY, SUBTEXT, preview


class SessionDetailScreen(ObservationListScreen):
    """One session."""

    CSS_PATH = "lists.tcss"

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id
        self.title_text = f"Session {session_id}"

    def compose_top(self) -> ComposeResult:
        yield Static("", id="session-info")

    def fetch_page(self, offset: int) -> Page[Any]:
        app = self.engram
        if offset == 0:
            session = get_session(app.store, self.session_id)
            app.call_from_thread(self.show_session, session)
        return session_observations(app.store, self.session_id, offset=offset, now=app.now)

    def show_session(self, session: Session | None) -> None:
        """The session's project, directory, times and summary above the list."""
        zone = self.engram.zone
        info = Text()
        if session is None:
            info.append("this session is not in the store", style=OVERLAY)
        else:
            info.append(session.project or "(no project)", style=f"bold {MAUVE}")
            if is_active(session, self.engram.now):
                info.append(f" {ACTIVE_BADGE}", style=f"bold {GREEN}")
            ended = local_time(session.ended_at, zone) or "not ended"
            info.append(f"  started {local_time(session.started_at, zone)} · ended {ended}")
            if session.directory:
                info.append(f"\n{session.directory}", style=OVERLAY)
            if session.summary:
                info.append(f"\n{preview(session.summary, 300)}", style=SUBTEXT)
        self.query_one("#session-info", Static).update(info)
