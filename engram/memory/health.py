"""Is the local store answering? (``GET /health`` of ``engram serve``)."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass
from typing import Any

from engram import __version__
from engram.errors import EngramError
from engram.store import meta
from engram.store.db import Store


@dataclass(frozen=True, slots=True)
class Health:
    """A healthy store: Engram's version and the store's instance id."""

    status: str
    service: str
    version: str
    instance_id: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def check_health(store: Store) -> Health:
    """Run live aggregate queries over the store (cheap ones) and report it healthy.

    Raises:
        EngramError: ``store.health_failed`` when any query fails.
    """
    try:
        with store.read() as conn:
            meta.latest_rows(conn)
            instance = meta.instance_id(conn)
    except sqlite3.Error as exc:
        raise EngramError(
            "store.health_failed",
            f"the store did not answer: {exc}",
            "run `engram doctor` to find out why",
        ) from exc
    return Health("ok", "engram", __version__, instance)
