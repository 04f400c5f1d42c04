"""Each screen's rendering, pinned as an SVG snapshot (pytest-textual-snapshot).

Fixed data (tests/tui/corpus.py), a fixed "now" and zone, and a fixed terminal size make the
pictures the same on every machine. After an intended change of the look, regenerate them
with ``pytest tests/tui/test_snapshots.py --snapshot-update`` and review the SVG diff.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from engram.tui.app import EngramApp
from tests.tui.conftest import SIZE, press, settle

AppFactory = Callable[..., EngramApp]
SnapCompare = Callable[..., bool]


def keys(*pressed: str) -> Callable[[Pilot[None]], Any]:
    """A ``run_before`` that presses ``pressed`` one by one, letting every query answer."""

    async def drive(pilot: Pilot[None]) -> None:
        await settle(pilot)
        for key in pressed:
            await press(pilot, key)
        for box in pilot.app.screen.query(Input):
            box.cursor_blink = False
        await settle(pilot)

    return drive


def test_dashboard(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=keys())


def test_dashboard_one_project(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    assert snap_compare(make_app("billing"), terminal_size=SIZE, run_before=keys())


def test_search(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    typed = keys("s", *"token", "space", *"refresh")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=typed)


def test_search_results(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    searched = keys("s", *"SQLite", "enter", "j")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=searched)


def test_recent_observations(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=keys("r", "j"))


def test_recent_observations_second_page(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=keys("r", "pagedown"))


def test_observation_detail(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    opened = keys("r", "j", "j", "enter")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=opened)


def test_timeline(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    shown = keys("e", "end", "enter", *["j"] * 8, "t")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=shown)


def test_sessions(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=keys("e"))


def test_session_detail(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    opened = keys("e", "j", "enter")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=opened)


def test_switch_project(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=keys("p", "j"))
