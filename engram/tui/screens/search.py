"""Search: type words, Enter shows the results."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Static


class SearchScreen(Screen[None]):
    """A search box. Every printable key types (so ``q`` and ``s`` are text here)."""

    CSS_PATH = "search.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def __init__(self, initial: str = "") -> None:
        super().__init__()
        self.initial = initial

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Search memories", id="title")
        yield Input(value=self.initial, placeholder="words to find…", id="query")
        yield Static(
            "Enter searches every word (title matches rank higher) · Esc goes back",
            id="hint",
        )
        yield Static("", id="status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        from engram.tui.screens.results import SearchResultsScreen

        message.stop()
        text = message.value.strip()
        if not text:
            self.query_one("#status", Static).update("type at least one word to search for")
            return
        self.query_one("#status", Static).update("")
        self.app.push_screen(SearchResultsScreen(text))

    def action_back(self) -> None:
        """Back to the previous screen."""
        self.app.pop_screen()
