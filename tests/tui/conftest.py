"""A seeded store and a way to build the app over it, fixed in time, zone and size."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from zoneinfo import ZoneInfo

import pytest
from textual.pilot import Pilot

from engram.store.db import Store
from engram.testing import Sandbox
from engram.tui.app import EngramApp
from tests.tui.corpus import NOW, ZONE, seed

SIZE = (110, 34)


@pytest.fixture
def anyio_backend() -> str:
    """Pilot tests run on asyncio (anyio's pytest plugin, marked ``pytest.mark.anyio``)."""
    return "asyncio"


@pytest.fixture
def store(sandbox: Sandbox) -> Iterator[Store]:
    """The sandbox's store, seeded with the fixed corpus."""
    opened = Store.open()
    seed(opened)
    yield opened
    opened.close()


@pytest.fixture
def make_app(store: Store) -> Callable[..., EngramApp]:
    """``make_app(project=None)``: the app over the seeded store, at the corpus's "now"."""

    def build(project: str | None = None) -> EngramApp:
        return EngramApp(store, project=project, zone=ZoneInfo(ZONE), now=NOW)

    return build


async def settle(pilot: Pilot[None]) -> None:
    """Wait until every query has answered and the screen has been redrawn."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def press(pilot: Pilot[None], *keys: str) -> None:
    """Press each key and let the app settle after it."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)
