"""ENGRAM_TIMEZONE: the zone timestamps are shown in (TUI, dashboards), local time otherwise."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engram.memory.clock import display_zone, local_time


def _offset_now(zone: object) -> object:
    return datetime.now(UTC).astimezone(zone).utcoffset()  # type: ignore[arg-type]


def test_an_iana_zone_is_used() -> None:
    zone = display_zone({"ENGRAM_TIMEZONE": "America/New_York"})
    assert local_time("2026-03-14 12:00:00", zone) == "2026-03-14 08:00"
    assert local_time("2026-07-01 12:00:00", zone, seconds=True) == "2026-07-01 08:00:00"
    berlin = display_zone({"ENGRAM_TIMEZONE": " Europe/Berlin "})
    assert local_time("2026-12-31 23:30:00", berlin) == "2027-01-01 00:30"


@pytest.mark.parametrize("name", ["", "Mars/Olympus_Mons", "../../etc/passwd", "Europe/"])
def test_unset_or_unknown_falls_back_to_local_time(name: str) -> None:
    local = datetime.now().astimezone().tzinfo
    zone = display_zone({"ENGRAM_TIMEZONE": name} if name else {})
    assert _offset_now(zone) == _offset_now(local)


def test_text_that_is_not_a_store_timestamp_is_shown_as_is() -> None:
    zone = display_zone({"ENGRAM_TIMEZONE": "UTC"})
    assert local_time(None, zone) == ""
    assert local_time("yesterday", zone) == "yesterday"
