"""A governed knowledge base on a real SQLite file in the sandbox, with a settable clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from governed_support import Clock, open_test_store

from engram.memory.governed import KnowledgeBase, resolve_workspace
from engram.testing import Sandbox


@pytest.fixture
def clock() -> Clock:
    """A clock tests can move: starts 2026-03-02 09:00 UTC."""
    return Clock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))


@pytest.fixture
def kb(sandbox: Sandbox, clock: Clock) -> Iterator[KnowledgeBase]:
    """A knowledge base for project ``demo`` in the sandbox workspace."""
    store = open_test_store(sandbox.data_dir)
    try:
        ws = resolve_workspace(sandbox.workspace, "demo")
        yield KnowledgeBase(store.connection, ws, clock=clock)
    finally:
        store.close()
