"""Test support for governed memory: a migrated store and a clock tests can move."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from engram.store.db import Store


def open_test_store(data_dir: Path) -> Store:
    """Open (creating and migrating) the real store in ``data_dir``."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    return Store.open(data_dir)


@dataclass
class Clock:
    """A settable UTC clock; call it for "now", ``advance`` it to move time."""

    current: datetime

    def __call__(self) -> datetime:
        return self.current

    def advance(self, **delta: float) -> None:
        """Move the clock forward by ``timedelta(**delta)``."""
        self.current += timedelta(**delta)
