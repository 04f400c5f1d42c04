"""A fresh store in the sandbox data dir for every memory test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engram.store.db import Store
from engram.testing import Sandbox


@pytest.fixture
def store(sandbox: Sandbox) -> Iterator[Store]:
    """The sandbox's store, opened the way every surface opens it."""
    opened = Store.open()
    yield opened
    opened.close()
