"""Observation Detail: one observation in full, scrollable."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static
from textual.worker import get_current_worker

from engram.errors import EngramError
from engram.memory.browse import ObservationDetail, observation_detail
from engram.memory.clock import local_time
from engram.tui.paged import unreadable
from engram.tui.palette import (
    ACTIVE_BADGE,
    BLUE,
    GREEN,
    MAUVE,
    OVERLAY,
    PEACH,
    TEXT,
    TYPE_COLOURS,
)

if TYPE_CHECKING:
    from engram.tui.app import EngramApp


class ObservationDetailScreen(Screen[None]):
    """The full text of one observation, its facts and its relations."""

    CSS_PATH = "detail.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "Back"),
        Binding("j,down", "scroll_down", "Scroll", show=False),
        Binding("k,up", "scroll_up", "Scroll", show=False),
        Binding("c", "copy", "Copy"),
        Binding("t", "timeline", "Timeline"),
    ]

    def __init__(self, obs_id: int) -> None:
        super().__init__()
        self.obs_id = obs_id
        self.detail: ObservationDetail | None = None

    @property
    def engram(self) -> EngramApp:
        """The running app."""
        from engram.tui.app import EngramApp

        assert isinstance(self.app, EngramApp)
        return self.app

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Observation #{self.obs_id}", id="title", markup=False)
        with VerticalScroll(id="body"):
            yield Static("loading…", id="facts", markup=False)
            yield Static("", id="content", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#body").loading = True
        self._fetch()

    @work(thread=True, exclusive=True, group="detail")
    def _fetch(self) -> None:
        app = self.engram
        try:
            detail: ObservationDetail | EngramError = observation_detail(
                app.store, self.obs_id, now=app.now
            )
        except EngramError as exc:
            detail = exc
        except sqlite3.Error as exc:
            detail = unreadable(exc)
        if not get_current_worker().is_cancelled:
            app.call_from_thread(self.show, detail)

    def show(self, detail: ObservationDetail | EngramError) -> None:
        """Draw the observation (or the error that kept it from loading)."""
        body = self.query_one("#body", VerticalScroll)
        body.loading = False
        facts = self.query_one("#facts", Static)
        if isinstance(detail, EngramError):
            facts.update(f"{detail.code}: {detail.one_line()}")
            return
        self.detail = detail
        obs = detail.observation
        self.query_one("#title", Static).update(Text(f"#{obs.id} {obs.title}"))
        facts.update(self._facts(detail))
        self.query_one("#content", Static).update(Text(obs.content, style=TEXT))
        body.focus()

    def _facts(self, detail: ObservationDetail) -> Text:
        obs, zone = detail.observation, self.engram.zone
        text = Text()
        text.append(f"[{obs.type}]", style=TYPE_COLOURS.get(obs.type, BLUE))
        text.append(f" {obs.project}", style=f"bold {MAUVE}")
        text.append(f" · {obs.scope}", style=OVERLAY)
        if obs.topic_key:
            text.append(f" · topic {obs.topic_key}", style=OVERLAY)
        if obs.pinned:
            text.append(" · pinned", style=PEACH)
        if obs.origin:
            text.append(f" · {obs.origin}", style=f"bold {PEACH}")
        text.append(
            f"\ncreated {local_time(obs.created_at, zone, seconds=True)}"
            f" · updated {local_time(obs.updated_at, zone, seconds=True)}"
            f" · revision {obs.revision_count}",
            style=OVERLAY,
        )
        if obs.session_id:
            text.append(f"\nsession {obs.session_id}", style=OVERLAY)
            if detail.active:
                text.append(f" {ACTIVE_BADGE}", style=f"bold {GREEN}")
        for note in detail.annotations:
            text.append(f"\n{note}", style=PEACH)
        return text

    def action_scroll_down(self) -> None:
        """Scroll the text down a line."""
        self.query_one("#body", VerticalScroll).scroll_down(animate=False)

    def action_scroll_up(self) -> None:
        """Scroll the text up a line."""
        self.query_one("#body", VerticalScroll).scroll_up(animate=False)

    def action_copy(self) -> None:
        """Copy the observation's content to the clipboard (OSC 52)."""
        if self.detail is not None:
            self.engram.copy_observation(self.detail.observation)

    def action_timeline(self) -> None:
        """Show what came before and after this observation in its session."""
        from engram.tui.screens.timeline import TimelineScreen

        self.app.push_screen(TimelineScreen(self.obs_id))

    def action_back(self) -> None:
        """Back to the previous screen."""
        self.app.pop_screen()
