"""The one clock the memory layer reads, and the store's timestamp format.

Operations take ``now: datetime | None``; tests pass a fixed time to move through dedup
windows and review cycles without sleeping.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, tzinfo

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


def display_zone(env: Mapping[str, str] | None = None) -> tzinfo:
    """The zone timestamps are shown in: ``ENGRAM_TIMEZONE`` (any IANA name), else the
    system's local zone (also for an unknown or malformed name)."""
    name = (os.environ if env is None else env).get("ENGRAM_TIMEZONE", "").strip()
    if name:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # not on the hook path

        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            pass
    local = datetime.now().astimezone().tzinfo
    return local if local is not None else UTC


def local_time(value: str | None, zone: tzinfo, *, seconds: bool = False) -> str:
    """A store timestamp (UTC ``YYYY-MM-DD HH:MM:SS``) shown in ``zone``; "" for None, the
    text itself when it is not a store timestamp."""
    if not value:
        return ""
    try:
        moment = datetime.strptime(value, STAMP_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return value
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
