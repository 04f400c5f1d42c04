"""A fresh process-wide ``mem_*`` tool state per in-process test (the store is cached there)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engram.server.mem_tools.context import STATE


@pytest.fixture(autouse=True)
def fresh_tool_state() -> Iterator[None]:
    """Close and forget the store the tools opened, before and after the test."""
    _reset()
    yield
    _reset()


def _reset() -> None:
    if STATE._store is not None:
        STATE._store.close()
    STATE._store = None
    STATE.recoveries.clear()
    STATE.prompts.clear()
