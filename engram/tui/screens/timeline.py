"""Timeline: an observation with what came just before and after it in its session."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from engram.memory.browse import ListedObservation, Page, is_active
from engram.memory.timeline import timeline
from engram.tui.observations import ObservationListScreen
from engram.tui.palette import PEACH

SPAN = 10


class TimelineScreen(ObservationListScreen):
    """Up to ten observations either side of one, oldest first; the cursor starts on it."""

    CSS_PATH = "lists.tcss"

    def __init__(self, obs_id: int) -> None:
        super().__init__()
        self.obs_id = obs_id
        self.title_text = f"Timeline around #{obs_id}"
        self.focus_index = 0

    def fetch_page(self, offset: int) -> Page[Any]:
        app = self.engram
        found = timeline(app.store, self.obs_id, before=SPAN, after=SPAN)
        active = is_active(found.session, app.now)
        rows = [*found.before, found.focus, *found.after]
        self.focus_index = len(found.before)
        items = tuple(ListedObservation(o, active) for o in rows)
        return Page(items, 0, len(items))

    def initial_cursor(self, page: Page[Any]) -> int:
        return self.focus_index

    def render_item(self, item: Any) -> Text:
        text = super().render_item(item)
        if isinstance(item, ListedObservation) and item.observation.id == self.obs_id:
            return Text("▶ ", style=f"bold {PEACH}") + text
        return text

    def action_timeline(self) -> None:
        """Centre the timeline on the selected observation."""
        item = self.selected
        if isinstance(item, ListedObservation) and item.observation.id != self.obs_id:
            self.obs_id = item.observation.id
            self.query_one("#title", Static).update(f"Timeline around #{self.obs_id}")
            self.load(0)
