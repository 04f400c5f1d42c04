"""A list shown one page at a time, and the screen every list screen is built on.

:class:`PagedListScreen` fetches a :class:`~engram.memory.browse.Page` in a worker thread (the
UI keeps answering keys while a query runs), shows it as two-line items, and asks for the
next or previous page when the cursor moves past either end, or on PageDown / PageUp.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from engram.errors import EngramError
from engram.memory.browse import PAGE_SIZE, Page

if TYPE_CHECKING:
    from engram.tui.app import EngramApp


def unreadable(exc: sqlite3.Error) -> EngramError:
    """A store error met while reading, as a one-line error the screen can show."""
    return EngramError(
        "store.read_failed",
        f"the store could not be read: {exc}",
        "try again; if it persists, run engram doctor",
    )


class PagedList(OptionList):
    """An option list that asks its screen for another page at either end."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("pagedown,right", "next_page", "Next page", show=False),
        Binding("pageup,left", "previous_page", "Previous page", show=False),
    ]

    class PageRequested(Message):
        """Show the next (``step`` 1) or previous (``step`` -1) page."""

        def __init__(self, step: int, cursor_at_end: bool) -> None:
            super().__init__()
            self.step = step
            self.cursor_at_end = cursor_at_end

    def action_cursor_down(self) -> None:
        """Down one item; past the last one, the next page."""
        if self.option_count and self.highlighted == self.option_count - 1:
            self.post_message(self.PageRequested(1, cursor_at_end=False))
            return
        super().action_cursor_down()

    def action_cursor_up(self) -> None:
        """Up one item; above the first one, the previous page (cursor on its last item)."""
        if self.option_count and self.highlighted == 0:
            self.post_message(self.PageRequested(-1, cursor_at_end=True))
            return
        super().action_cursor_up()

    def action_next_page(self) -> None:
        """The next page."""
        self.post_message(self.PageRequested(1, cursor_at_end=False))

    def action_previous_page(self) -> None:
        """The previous page."""
        self.post_message(self.PageRequested(-1, cursor_at_end=False))


class PagedListScreen(Screen[None]):
    """A screen showing one paged list. Subclasses say how to fetch and draw a page."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "Back"),
        Binding("enter", "open", "Open", show=False),
    ]
    title_text = ""

    def __init__(self) -> None:
        super().__init__()
        self.page: Page[Any] | None = None
        self.item_width: int | None = None

    @property
    def engram(self) -> EngramApp:
        """The running app (its store, project, time zone)."""
        from engram.tui.app import EngramApp

        assert isinstance(self.app, EngramApp)
        return self.app

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.title_text, id="title", markup=False)
        yield from self.compose_top()
        yield Static("loading…", id="position")
        yield PagedList(id="items")
        yield Static("", id="status", markup=False)
        yield Footer()

    def compose_top(self) -> ComposeResult:
        """Widgets between the title and the list (none by default)."""
        yield from ()

    def on_mount(self) -> None:
        self.load(0)

    def fetch_page(self, offset: int) -> Page[Any]:
        """The page at ``offset`` (runs in a worker thread)."""
        raise NotImplementedError

    def render_item(self, item: Any) -> Text:
        """One item's two lines."""
        raise NotImplementedError

    def open_item(self, item: Any) -> None:
        """What Enter does on an item."""

    def initial_cursor(self, page: Page[Any]) -> int:
        """Where the cursor starts on a freshly loaded page."""
        return 0

    def reload(self) -> None:
        """Fetch the first page again (the project changed)."""
        self.load(0)

    def load(self, offset: int, *, cursor_at_end: bool = False) -> None:
        """Fetch the page at ``offset`` in a worker; the list shows a spinner meanwhile."""
        self.query_one(PagedList).loading = True
        self._fetch(offset, cursor_at_end)

    @work(thread=True, exclusive=True, group="page")
    def _fetch(self, offset: int, cursor_at_end: bool) -> None:
        try:
            page = self.fetch_page(offset)
        except sqlite3.Error as exc:
            error = unreadable(exc)
            if not get_current_worker().is_cancelled:
                self.app.call_from_thread(self.show_error, error)
            return
        except EngramError as exc:
            if not get_current_worker().is_cancelled:
                self.app.call_from_thread(self.show_error, exc)
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.show_page, page, cursor_at_end)

    def show_page(self, page: Page[Any], cursor_at_end: bool = False) -> None:
        """Draw ``page`` and place the cursor."""
        self.page = page
        items = self.query_one(PagedList)
        items.clear_options()
        # Cut each line to the list's width (minus the option's padding and the scrollbar).
        # (Before the first layout the list has no size yet: the terminal's width stands in.)
        available = items.content_region.width or self.app.size.width - 4
        self.item_width = max(available - 4, 20)
        items.add_options([Option(self.render_item(item)) for item in page.items])
        if page.items:
            items.highlighted = len(page.items) - 1 if cursor_at_end else self.initial_cursor(page)
        items.loading = False
        self.query_one("#position", Static).update(page.position)
        self.query_one("#status", Static).update("")
        items.focus()

    def show_error(self, error: EngramError) -> None:
        """Show a one-line error where the list would be."""
        items = self.query_one(PagedList)
        items.loading = False
        items.clear_options()
        self.query_one("#position", Static).update("nothing to show")
        self.query_one("#status", Static).update(f"{error.code}: {error.one_line()}")

    def on_paged_list_page_requested(self, message: PagedList.PageRequested) -> None:
        page = self.page
        if page is None:
            return
        if message.step > 0 and page.has_next:
            self.load(page.offset + len(page.items))
        elif message.step < 0 and page.offset > 0:
            self.load(max(page.offset - PAGE_SIZE, 0), cursor_at_end=message.cursor_at_end)

    @property
    def selected(self) -> Any | None:
        """The item under the cursor, or None."""
        index = self.query_one(PagedList).highlighted
        if self.page is None or index is None or index >= len(self.page.items):
            return None
        return self.page.items[index]

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        message.stop()
        item = self.selected
        if item is not None:
            self.open_item(item)

    def action_open(self) -> None:
        """Open the item under the cursor."""
        item = self.selected
        if item is not None:
            self.open_item(item)

    def action_back(self) -> None:
        """Back to the previous screen."""
        self.app.pop_screen()
