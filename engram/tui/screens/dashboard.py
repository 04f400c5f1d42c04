"""Dashboard: the counts of what is remembered, and a menu of the other screens."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from engram.errors import EngramError
from engram.memory.projects import Stats, stats
from engram.tui.paged import unreadable
from engram.tui.palette import OVERLAY, TEXT

if TYPE_CHECKING:
    from engram.tui.app import EngramApp

# (action, label, key hint) in menu order.
MENU = (
    ("search", "Search memories", "s"),
    ("recent", "Recent observations", "r"),
    ("sessions", "Sessions", "e"),
    ("switch_project", "Switch project", "p"),
    ("quit", "Quit", "q"),
)
CARDS = ("sessions", "observations", "prompts", "projects")


class DashboardScreen(Screen[None]):
    """The first screen: stats for the current project (or every project) and the menu."""

    CSS_PATH = "dashboard.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "app.quit", "Quit"),
        Binding("r", "recent", "Recent"),
        Binding("e", "sessions", "Sessions"),
        Binding("j", "menu_down", show=False),
        Binding("k", "menu_up", show=False),
    ]

    @property
    def engram(self) -> EngramApp:
        """The running app."""
        from engram.tui.app import EngramApp

        assert isinstance(self.app, EngramApp)
        return self.app

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="scope")
        with Horizontal(id="stats"):
            for name in CARDS:
                yield Static(self._card("…", name), id=f"card-{name}", classes="card")
        menu = [Option(self._menu_line(label, key), id=action) for action, label, key in MENU]
        yield OptionList(*menu, id="menu")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        """Count again (the project changed)."""
        project = self.engram.project
        self.query_one("#scope", Static).update(
            f"Project: {project}" if project is not None else "All projects"
        )
        for name in CARDS:
            self.query_one(f"#card-{name}", Static).update(self._card("…", name))
        self.query_one("#stats").loading = True
        self._count(project)
        self.query_one("#menu", OptionList).focus()

    @work(thread=True, exclusive=True, group="stats")
    def _count(self, project: str | None) -> None:
        try:
            counted: Stats | EngramError = stats(self.engram.store, project=project)
        except sqlite3.Error as exc:
            counted = unreadable(exc)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.show_stats, counted)

    def show_stats(self, counted: Stats | EngramError) -> None:
        """Fill the four cards (or say why they could not be counted)."""
        if isinstance(counted, EngramError):
            self.query_one("#stats").loading = False
            self.query_one("#scope", Static).update(f"{counted.code}: {counted.one_line()}")
            return
        values = {
            "sessions": counted.sessions,
            "observations": counted.observations,
            "prompts": counted.prompts,
            "projects": len(counted.projects),
        }
        for name, value in values.items():
            self.query_one(f"#card-{name}", Static).update(self._card(f"{value:,}", name))
        self.query_one("#stats").loading = False
        self.add_class("counted")

    @staticmethod
    def _card(value: str, label: str) -> Text:
        text = Text(justify="center")
        text.append(f"{value}\n", style=f"bold {TEXT}")
        text.append(label, style=OVERLAY)
        return text

    @staticmethod
    def _menu_line(label: str, key: str) -> Text:
        text = Text()
        text.append(f"{label:<24}")
        text.append(key, style=OVERLAY)
        return text

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        message.stop()
        action = message.option.id
        if action == "quit":
            self.app.exit()
        elif action == "search":
            self.engram.action_search()
        elif action == "switch_project":
            self.engram.action_switch_project()
        elif action == "recent":
            self.action_recent()
        elif action == "sessions":
            self.action_sessions()

    def action_recent(self) -> None:
        """Browse recent observations."""
        from engram.tui.screens.recent import RecentScreen

        self.app.push_screen(RecentScreen())

    def action_sessions(self) -> None:
        """Browse sessions."""
        from engram.tui.screens.sessions import SessionsScreen

        self.app.push_screen(SessionsScreen())

    def action_menu_down(self) -> None:
        """Next menu entry."""
        self.query_one("#menu", OptionList).action_cursor_down()

    def action_menu_up(self) -> None:
        """Previous menu entry."""
        self.query_one("#menu", OptionList).action_cursor_up()
