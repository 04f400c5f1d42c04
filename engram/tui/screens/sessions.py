"""Sessions: every session, active ones first, newest first."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from engram.memory.browse import ListedSession, Page, recent_sessions_page
from engram.tui.paged import PagedListScreen
from engram.tui.palette import session_item


class SessionsScreen(PagedListScreen):
    """Browse sessions page by page; Enter shows a session's observations."""

    CSS_PATH = "lists.tcss"
    title_text = "Sessions"

    def fetch_page(self, offset: int) -> Page[Any]:
        app = self.engram
        return recent_sessions_page(app.store, project=app.project, offset=offset, now=app.now)

    def render_item(self, item: Any) -> Text:
        assert isinstance(item, ListedSession)
        return session_item(item, self.engram.zone, width=self.item_width)

    def open_item(self, item: Any) -> None:
        from engram.tui.screens.session_detail import SessionDetailScreen

        assert isinstance(item, ListedSession)
        self.app.push_screen(SessionDetailScreen(item.session.id))
