"""Test support for governed memory: a migrated store file and a clock tests can move."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import engram.store.governed


def open_test_store(data_dir: Path) -> sqlite3.Connection:
    """Open ``engram.db`` in ``data_dir`` with the governed migration applied."""
    data_dir.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(data_dir / "engram.db", isolation_level=None)
    migration = Path(engram.store.governed.__file__).parent / "migrations" / "0002_governed.sql"
    conn.executescript(migration.read_text(encoding="utf-8"))
    return conn


@dataclass
class Clock:
    """A settable UTC clock; call it for "now", ``advance`` it to move time."""

    current: datetime

    def __call__(self) -> datetime:
        return self.current

    def advance(self, **delta: float) -> None:
        """Move the clock forward by ``timedelta(**delta)``."""
        self.current += timedelta(**delta)
