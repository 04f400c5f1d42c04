"""Textual's pilot drives every screen and key of ``engram tui`` over a fixed store."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from rich.text import Text
from textual.widgets import Input, OptionList, Static

from engram.memory.save import save_observation
from engram.store.db import Store
from engram.tui.app import EngramApp
from engram.tui.paged import PagedList
from engram.tui.screens.dashboard import DashboardScreen
from engram.tui.screens.detail import ObservationDetailScreen
from engram.tui.screens.recent import RecentScreen
from engram.tui.screens.results import SearchResultsScreen
from engram.tui.screens.search import SearchScreen
from engram.tui.screens.session_detail import SessionDetailScreen
from engram.tui.screens.sessions import SessionsScreen
from engram.tui.screens.timeline import TimelineScreen
from tests.tui.conftest import SIZE, press, settle
from tests.tui.corpus import NOW

AppFactory = Callable[..., EngramApp]
pytestmark = pytest.mark.anyio


def text(app: EngramApp, selector: str) -> str:
    """The plain text a Static shows."""
    content = app.screen.query_one(selector, Static).content
    return content.plain if isinstance(content, Text) else str(content)


def items(app: EngramApp) -> list[str]:
    """The plain text of every item of the screen's list."""
    options = app.screen.query_one(OptionList)
    prompts = [options.get_option_at_index(i).prompt for i in range(options.option_count)]
    return [p.plain if isinstance(p, Text) else str(p) for p in prompts]


def cursor(app: EngramApp) -> int | None:
    return app.screen.query_one(OptionList).highlighted


async def test_dashboard_counts_and_menu(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen)
        cards = {name: text(app, f"#card-{name}") for name in ("sessions", "observations")}
        assert cards == {"sessions": "4\nsessions", "observations": "57\nobservations"}
        assert text(app, "#card-projects") == "2\nprojects"
        assert text(app, "#scope") == "All projects"
        assert cursor(app) == 0
        await press(pilot, "j", "down")
        assert cursor(app) == 2
        await press(pilot, "k")
        assert cursor(app) == 1
        await press(pilot, "enter")
        assert isinstance(app.screen, RecentScreen)


async def test_recent_lists_active_first_and_pages(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "r")
        assert isinstance(app.screen, RecentScreen)
        assert text(app, "#position") == "showing 1-20 of 57"
        first = items(app)
        assert len(first) == 20
        # Observations of the active session lead, badged; then the newest of the rest.
        assert [line.split(" ")[0] for line in first[:4]] == ["#57", "#56", "#55", "#54"]
        assert all("(active)" in line for line in first[:3])
        assert "(active)" not in first[3]
        # Two lines per item: the title line and a preview of the content.
        assert first[0].split("\n")[1].strip().startswith("Title matches weigh five times")
        for _ in range(19):
            await pilot.press("j")
        await settle(pilot)
        assert cursor(app) == 19
        await press(pilot, "down")  # past the last item: the next page
        assert text(app, "#position") == "showing 21-40 of 57"
        assert cursor(app) == 0
        await press(pilot, "k")  # above the first item: the previous page, cursor at its end
        assert text(app, "#position") == "showing 1-20 of 57"
        assert cursor(app) == 19
        await press(pilot, "pagedown", "pagedown")
        assert text(app, "#position") == "showing 41-57 of 57"
        await press(pilot, "pagedown")  # no page after the last
        assert text(app, "#position") == "showing 41-57 of 57"
        await press(pilot, "pageup")
        assert text(app, "#position") == "showing 21-40 of 57"
        await press(pilot, "left")
        assert text(app, "#position") == "showing 1-20 of 57"
        await press(pilot, "left")  # no page before the first
        assert text(app, "#position") == "showing 1-20 of 57"
        await press(pilot, "right", "down", "down", "up")
        assert text(app, "#position") == "showing 21-40 of 57"
        assert cursor(app) == 1
        await press(pilot, "escape")
        assert isinstance(app.screen, DashboardScreen)


async def test_detail_scrolls_copies_and_opens_the_timeline(
    store: Store, make_app: AppFactory
) -> None:
    body = "\n".join(f"line {n} of a long note" for n in range(1, 81))
    long = save_observation(
        store, title="A long note", content=body, project="acme-api", now=NOW
    ).observation
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "r")
        at = next(n for n, line in enumerate(items(app)) if line.startswith(f"#{long.id} "))
        # Two screen lines however long the text: each cut to the list's width with "…".
        _, shown = items(app)[at].split("\n")
        assert shown.startswith("  line 1 of a long note line 2 of") and shown.endswith("…")
        assert len(shown) <= SIZE[0] - 6
        await press(pilot, *["j"] * at, "enter")
        screen = app.screen
        assert isinstance(screen, ObservationDetailScreen)
        assert text(app, "#title") == f"#{long.id} A long note"
        assert text(app, "#content") == body
        pane = screen.query_one("#body")
        assert pane.scroll_y == 0
        await press(pilot, "j", "j", "j")
        assert pane.scroll_y == 3
        await press(pilot, "k")
        assert pane.scroll_y == 2
        await press(pilot, "c")
        assert app.clipboard == body
        await press(pilot, "q")
        assert isinstance(app.screen, RecentScreen)


async def test_detail_shows_relations_and_local_time(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "r", "enter")
        assert isinstance(app.screen, ObservationDetailScreen)
        facts = text(app, "#facts")
        # Saved at 12:02 UTC; shown in ENGRAM_TIMEZONE's Europe/Berlin (UTC+1 in March).
        assert "created 2026-03-14 13:02:00" in facts
        assert "session session-live (active)" in facts
        await press(pilot, "escape", "j", "j", "enter")
        facts = text(app, "#facts")
        assert "supersedes: #1 (Use SQLite WAL for the store (1.1))" in facts
        await press(pilot, "t")
        assert isinstance(app.screen, TimelineScreen)


async def test_timeline_centres_on_the_observation(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "e")
        assert isinstance(app.screen, SessionsScreen)
        # session-01 is the oldest; its 9th observation is id 9.
        await press(pilot, "end", "enter")
        assert isinstance(app.screen, SessionDetailScreen)
        await press(pilot, *["j"] * 8, "t")
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        assert text(app, "#title") == "Timeline around #9"
        listed = items(app)
        ids = [line.removeprefix("▶ ").split(" ")[0] for line in listed]
        assert ids == [f"#{i}" for i in range(1, 19)]
        assert len(listed) == 18  # 8 before, the focus, 9 after: the whole session
        assert cursor(app) == 8 and listed[8].startswith("▶ #9 ")
        await press(pilot, "k", "t")  # centre on #8
        assert text(app, "#title") == "Timeline around #8"
        assert cursor(app) == 7
        await press(pilot, "c")
        assert app.clipboard is not None and "Note 8 of session 1" in app.clipboard
        await press(pilot, "enter")
        assert isinstance(app.screen, ObservationDetailScreen)
        assert app.screen.obs_id == 8


async def test_sessions_active_first_and_session_detail(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "e")
        listed = items(app)
        assert text(app, "#position") == "showing 1-4 of 4"
        assert listed[0].startswith("session-live (active)  acme-api")
        assert "3 observations" in listed[0]
        assert [line.split(" ")[0] for line in listed[1:]] == [
            "session-03",
            "session-02",
            "session-01",
        ]
        assert "18 observations · Worked on billing: 18 notes." in listed[2]
        await press(pilot, "j", "enter")
        assert isinstance(app.screen, SessionDetailScreen)
        assert "acme-api" in text(app, "#session-info")
        assert "Worked on acme-api" in text(app, "#session-info")
        assert text(app, "#position") == "showing 1-18 of 18"
        in_order = [int(line.split(" ")[0][1:]) for line in items(app)]
        assert in_order == sorted(in_order)
        await press(pilot, "c")
        assert app.clipboard is not None and "Note 1 of session 3" in app.clipboard
        await press(pilot, "escape", "escape")
        assert isinstance(app.screen, DashboardScreen)


async def test_search_from_any_screen(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "e", "slash")
        assert isinstance(app.screen, SearchScreen)
        # Printable keys type into the box, q and s included.
        await pilot.press(*"refresh", "space", *"race", "space", "q")
        await settle(pilot)
        assert app.screen.query_one(Input).value == "refresh race q"
        await press(pilot, "backspace", "backspace", "enter")
        assert isinstance(app.screen, SearchResultsScreen)
        listed = items(app)
        assert text(app, "#title") == "Results for “refresh race”"
        assert text(app, "#position") == f"showing 1-{min(len(listed), 20)} of 10"
        assert all("Fix token refresh race" in line for line in listed)
        await press(pilot, "c")
        assert app.clipboard is not None and "lock around refresh" in app.clipboard
        await press(pilot, "t")
        assert isinstance(app.screen, TimelineScreen)
        await press(pilot, "escape", "s")  # s from the results opens a new search
        assert isinstance(app.screen, SearchScreen)
        await press(pilot, "escape", "escape", "escape")
        assert isinstance(app.screen, SessionsScreen)


async def test_search_shows_relation_notes_and_empty_input(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "s", "enter")
        assert isinstance(app.screen, SearchScreen)
        assert text(app, "#status") == "type at least one word to search for"
        await pilot.press(*"Use", "space", *"SQLite", "space", "WAL")
        await press(pilot, "enter")
        # Results of the active session are marked, in ranking order.
        marked = [line.split(" ")[0] for line in items(app) if "(active)" in line.split("\n")[0]]
        assert marked == ["#55"]
        notes = [line for line in items(app) if "superseded_by" in line]
        assert notes and "superseded_by: #55 (Live: Use SQLite WAL for the store)" in notes[0]
        await press(pilot, "slash")
        await pilot.press(*"***")
        await press(pilot, "enter")
        assert isinstance(app.screen, SearchResultsScreen)
        assert text(app, "#position") == "nothing to show"
        assert text(app, "#status").startswith("memory.empty_query: nothing to search for")


async def test_switching_project(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "p")
        assert items(app) == ["(all projects)", "acme-api", "billing"]
        assert cursor(app) == 0
        await press(pilot, "j", "j", "enter")
        assert isinstance(app.screen, DashboardScreen)
        assert text(app, "#scope") == "Project: billing"
        assert app.sub_title == "billing"
        assert text(app, "#card-observations") == "18\nobservations"
        await press(pilot, "r")
        assert text(app, "#position") == "showing 1-18 of 18"
        assert all("(active)" not in line for line in items(app))
        await press(pilot, "p", "k", "enter")  # back to acme-api, from a list screen
        assert app.project == "acme-api"
        assert text(app, "#position") == "showing 1-20 of 39"
        await press(pilot, "p", "escape")  # Esc keeps the project
        assert app.project == "acme-api"


async def test_quit_keys(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "e", "enter", "enter", "t")
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "r", "q")
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("q")
        await pilot.pause()
    assert not app.is_running
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await pilot.pause()
    assert not app.is_running


async def test_stays_responsive_while_a_query_runs(store: Store, make_app: AppFactory) -> None:
    app = make_app()
    held = threading.Event()
    release = threading.Event()

    def hold_the_store() -> None:
        with store.write():  # every query waits for this transaction
            held.set()
            release.wait(30)

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        blocker = threading.Thread(target=hold_the_store)
        blocker.start()
        held.wait(5)
        try:
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, RecentScreen)
            assert app.screen.query_one(PagedList).loading
            assert text(app, "#position") == "loading…"
            await pilot.press("escape")  # the UI answers while the query waits
            await pilot.pause()
            assert isinstance(app.screen, DashboardScreen)
            await pilot.press("e")
            await pilot.pause()
            assert isinstance(app.screen, SessionsScreen)
        finally:
            release.set()
            blocker.join()
        await settle(pilot)
        assert text(app, "#position") == "showing 1-4 of 4"


async def test_timezone_comes_from_engram_timezone(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENGRAM_TIMEZONE", "Asia/Tokyo")
    app = EngramApp(store, project="billing", now=NOW)
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "r")
        # The newest billing note was saved 2026-02-13 12:12 UTC: 21:12 in Tokyo.
        assert "billing" not in items(app)[0].split("\n")[0]  # one project: no project label
        assert items(app)[0].split("\n")[0].endswith("2026-02-13 21:12")


async def test_a_store_error_is_one_line_not_a_crash(store: Store, make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        store.connection.execute("ALTER TABLE sessions RENAME TO sessions_gone")
        await press(pilot, "e")
        assert isinstance(app.screen, SessionsScreen)
        status = text(app, "#status")  # the store's one-line error, code first
        assert status.startswith("store.") and "no such table: sessions" in status
        assert "\n" not in status
        assert text(app, "#position") == "nothing to show"
        await press(pilot, "escape", "r")  # the app carries on
        assert isinstance(app.screen, RecentScreen)


async def test_the_dashboard_is_one_key_away_and_esc_goes_back_one_screen(
    make_app: AppFactory,
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "r", "enter", "t")
        assert isinstance(app.screen, TimelineScreen)
        await press(pilot, "escape")
        assert isinstance(app.screen, ObservationDetailScreen)  # one screen back, not two
        await press(pilot, "t", "d")
        assert isinstance(app.screen, DashboardScreen)
        await press(pilot, "e", "enter", "d")
        assert isinstance(app.screen, DashboardScreen)
        assert app.is_running
