"""What every list of observations shares: two-line items, Enter, ``c`` copy, ``t`` timeline."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType

from engram.memory.browse import ListedObservation
from engram.tui.paged import PagedListScreen
from engram.tui.palette import observation_item


class ObservationListScreen(PagedListScreen):
    """A paged list of observations."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "Copy"),
        Binding("t", "timeline", "Timeline"),
    ]

    def render_item(self, item: Any) -> Text:
        assert isinstance(item, ListedObservation)
        return observation_item(
            item,
            self.engram.zone,
            show_project=self.engram.project is None,
            width=self.item_width,
        )

    def open_item(self, item: Any) -> None:
        from engram.tui.screens.detail import ObservationDetailScreen

        assert isinstance(item, ListedObservation)
        self.app.push_screen(ObservationDetailScreen(item.observation.id))

    def action_copy(self) -> None:
        """Copy the selected observation's content to the clipboard (OSC 52)."""
        item = self.selected
        if isinstance(item, ListedObservation):
            self.engram.copy_observation(item.observation)

    def action_timeline(self) -> None:
        """Show the selected observation's timeline."""
        from engram.tui.screens.timeline import TimelineScreen

        item = self.selected
        if isinstance(item, ListedObservation):
            self.app.push_screen(TimelineScreen(item.observation.id))
