"""The one clock the memory layer reads, and the store's timestamp format.

Operations take ``now: datetime | None``; tests pass a fixed time to move through dedup
windows and review cycles without sleeping.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

STAMP_FORMAT = "%Y-%m-%d %H:%M:%S"


def utc_now() -> datetime:
    """The current UTC time (timezone-aware)."""
    return datetime.now(UTC)


def stamp(moment: datetime | None = None) -> str:
    """``moment`` (default now) as the store's UTC text timestamp ``YYYY-MM-DD HH:MM:SS``."""
    moment = moment or utc_now()
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime(STAMP_FORMAT)


def stamp_after(moment: datetime | None, delta: timedelta) -> str:
    """The timestamp ``delta`` after ``moment`` (default now)."""
    return stamp((moment or utc_now()) + delta)
