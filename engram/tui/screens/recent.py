"""Recent Observations: every observation, those of active sessions first, newest first."""

from __future__ import annotations

from typing import Any

from engram.memory.browse import Page, recent_observations
from engram.tui.observations import ObservationListScreen


class RecentScreen(ObservationListScreen):
    """Browse observations page by page."""

    CSS_PATH = "lists.tcss"
    title_text = "Recent observations"

    def fetch_page(self, offset: int) -> Page[Any]:
        app = self.engram
        return recent_observations(app.store, project=app.project, offset=offset, now=app.now)
