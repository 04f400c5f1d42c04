"""The manifest stays valid JSON under git's union merge and is read even when mangled."""

from __future__ import annotations

import json

from engram.sync.manifest import ManifestEntry, append_entry, empty_manifest, parse_manifest


def _entry(chunk_id: str) -> ManifestEntry:
    return ManifestEntry(chunk_id, chunk_id * 4, "origin-" + chunk_id[:2], "2026-01-01", 3, ("p",))


def test_two_appends_unioned_line_by_line_are_still_valid_json() -> None:
    base = append_entry(empty_manifest(), _entry("a" * 16))
    ours = append_entry(base, _entry("b" * 16)).splitlines()
    theirs = append_entry(base, _entry("c" * 16)).splitlines()
    # git's union driver: common lines, then our added line, then theirs, then the rest.
    merged = "\n".join([*ours[:-1], theirs[-2], *ours[-1:]]) + "\n"
    assert [e.id for e in parse_manifest(merged)] == ["a" * 16, "b" * 16, "c" * 16]
    json.loads(merged)


def test_a_manifest_with_conflict_markers_is_read_line_by_line() -> None:
    text = append_entry(empty_manifest(), _entry("a" * 16))
    lines = text.splitlines()
    mangled = "\n".join(
        [*lines[:-1], "<<<<<<< HEAD", "," + _entry("b" * 16).to_line(), "=======",
         "," + _entry("c" * 16).to_line(), ">>>>>>> theirs", lines[-1]]
    )  # fmt: skip
    assert {e.id for e in parse_manifest(mangled)} == {"a" * 16, "b" * 16, "c" * 16}
    repaired = append_entry(mangled, _entry("d" * 16))
    assert json.loads(repaired)["chunks"][-1]["id"] == "d" * 16
    assert len(parse_manifest(repaired)) == 4
