"""The Textual app of ``engram tui``: the store, the current project and the global keys."""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from engram.memory.clock import display_zone
from engram.store.db import Store
from engram.store.records import Observation
from engram.tui.palette import THEME
from engram.tui.screens.dashboard import DashboardScreen
from engram.tui.screens.projects import ProjectChoice, ProjectScreen


class EngramApp(App[None]):
    """Browse one store.

    Args:
        store: the open store (the app reads it through ``engram.memory`` only).
        project: the project shown first (None: every project).
        zone: where timestamps are shown (default: ``ENGRAM_TIMEZONE``, else local time).
        now: a fixed "now" for what counts as an active session (tests); default the clock.
    """

    CSS_PATH = "app.tcss"
    TITLE = "engram"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("s,slash", "search", "Search"),
        Binding("p", "switch_project", "Project"),
        Binding("d", "dashboard", "Dashboard"),
    ]

    def __init__(
        self,
        store: Store,
        *,
        project: str | None = None,
        zone: tzinfo | None = None,
        now: datetime | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        self.project = project
        self.zone = zone if zone is not None else display_zone()
        self.now = now

    def on_mount(self) -> None:
        self.theme = THEME
        self._show_project()
        # Pushed (not the default screen) so that its own stylesheet is loaded.
        self.push_screen(DashboardScreen())

    def _show_project(self) -> None:
        self.sub_title = self.project if self.project is not None else "all projects"

    def action_search(self) -> None:
        """Open the search box (from any screen)."""
        from engram.tui.screens.search import SearchScreen

        if not isinstance(self.screen, SearchScreen):
            self.push_screen(SearchScreen())

    def action_dashboard(self) -> None:
        """Back to the dashboard from any screen, in one key (the screens between are closed)."""
        while len(self.screen_stack) > 1 and not isinstance(self.screen, DashboardScreen):
            self.pop_screen()

    def action_switch_project(self) -> None:
        """Pick another project (or every project)."""
        if not isinstance(self.screen, ProjectScreen):
            self.push_screen(ProjectScreen(), callback=self.set_project)

    def set_project(self, choice: ProjectChoice | None) -> None:
        """Show ``choice``'s project from now on; the current screen reloads."""
        if choice is None or choice.project == self.project:
            return
        self.project = choice.project
        self._show_project()
        reload = getattr(self.screen, "reload", None)
        if callable(reload):
            reload()

    def copy_observation(self, observation: Observation) -> None:
        """Put an observation's content on the clipboard (OSC 52) and say so."""
        self.copy_to_clipboard(observation.content)
        self.notify(f"Copied #{observation.id} to the clipboard", timeout=2)
