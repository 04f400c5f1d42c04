"""Switch project: pick one project, or every project."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from engram.memory.project import known_project_names

if TYPE_CHECKING:
    from engram.tui.app import EngramApp

ALL_PROJECTS = "(all projects)"


@dataclass(frozen=True, slots=True)
class ProjectChoice:
    """The project picked (None: every project)."""

    project: str | None


class ProjectScreen(ModalScreen[ProjectChoice | None]):
    """A list of the store's projects over the current screen; Esc keeps the current one."""

    CSS_PATH = "projects.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "cancel", "Cancel"),
        Binding("j", "down", show=False),
        Binding("k", "up", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str | None] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Switch project", id="title")
            yield OptionList(id="projects")

    def on_mount(self) -> None:
        self.query_one(OptionList).loading = True
        self._fetch()

    @property
    def engram(self) -> EngramApp:
        """The running app."""
        from engram.tui.app import EngramApp

        assert isinstance(self.app, EngramApp)
        return self.app

    @work(thread=True, exclusive=True)
    def _fetch(self) -> None:
        names = known_project_names(self.engram.store)
        self.app.call_from_thread(self.show, names)

    def show(self, names: list[str]) -> None:
        """List every project, the current one highlighted."""
        current = self.engram.project
        self.names = [None, *names]
        options = self.query_one(OptionList)
        options.add_options([Option(name or ALL_PROJECTS) for name in self.names])
        options.highlighted = self.names.index(current) if current in self.names else 0
        options.loading = False
        options.focus()

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        message.stop()
        self.dismiss(ProjectChoice(self.names[message.option_index]))

    def action_down(self) -> None:
        """Next project."""
        self.query_one(OptionList).action_cursor_down()

    def action_up(self) -> None:
        """Previous project."""
        self.query_one(OptionList).action_cursor_up()

    def action_cancel(self) -> None:
        """Keep the current project."""
        self.dismiss(None)
