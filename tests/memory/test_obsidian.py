"""``engram obsidian-export``: a vault whose every note parses and every link resolves, that a
second export leaves alone, and that never overwrites a note the user edited."""

from __future__ import annotations

import json
import os
import re
import unicodedata
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engram.errors import EngramError
from engram.memory.clock import stamp
from engram.memory.observation import delete_observation, update_observation
from engram.memory.obsidian import export_vault
from engram.memory.relations import compare
from engram.memory.sessions import start_session
from engram.store import observations
from engram.store.db import Store
from engram.testing import Sandbox

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
WIKILINK = re.compile(r"(?<!\\)\[\[([^\]|]+)(?:\|[^\]]*)?\]\]")
TITLES = [
    'Quote "marks" and back\\slash',
    "Colon: pipes | and #hash ^caret",
    "Link-looking [[Not a link]] text",
    "Unicode: café naïve 東京 🚀",
    "   spaces   around   ",
    "Ends with dots...",
    "Invisible\u200b\ufeff and\x85line\u2028breaks",
]


def fill(store: Store, count: int) -> None:
    """``count`` observations over three projects, 40 per session, some with topic keys and
    awkward titles and bodies; written in one transaction through the store's own insert."""
    projects = ("acme-api", "billing", "web ui")
    sessions: list[str] = []
    for number in range(count // 40 + 1):
        project = projects[number % 3]
        sid = f"s{number:04d}/{project}"
        start_session(store, sid, project=project, now=START + timedelta(hours=number))
        sessions.append(sid)
    with store.write() as conn:
        for index in range(count):
            sid = sessions[index // 40]
            project = projects[(index // 40) % 3]
            title = f"{TITLES[index % len(TITLES)]} {index}"
            body = f"Body {index}\n---\nkey: value\n[[also not a link]] \x07 end"
            new = observations.NewObservation(
                session_id=sid,
                type=("decision", "bugfix", "discovery")[index % 3],
                title=title,
                content=body,
                project=project,
                scope="project",
                normalized_hash=f"h{index}",
                topic_key=f"area/{index % 7}" if index % 5 == 0 else None,
            )
            observations.insert(conn, new, stamp(START + timedelta(minutes=index)))


def frontmatter(text: str) -> dict[str, object]:
    """Parse the YAML frontmatter Engram writes, strictly: quoted strings (JSON-compatible
    escapes), integers, null, ISO UTC datetimes and lists of quoted strings."""
    assert text.startswith("---\n"), text[:40]
    block, _, _ = text[4:].partition("\n---\n")
    fields: dict[str, object] = {}
    key = ""
    for line in block.split("\n"):
        if line.startswith("  - "):
            items = fields[key]
            assert isinstance(items, list)
            items.append(quoted(line[4:]))
            continue
        match = re.fullmatch(r"([a-z_]+): ?(.*)", line)
        assert match, f"not a frontmatter line: {line!r}"
        key, value = match.groups()
        if value == "":
            fields[key] = []
        elif value in ("null", "[]"):
            fields[key] = None if value == "null" else []
        elif re.fullmatch(r"-?\d+", value):
            fields[key] = int(value)
        elif re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", value):
            fields[key] = datetime.fromisoformat(value)
        else:
            fields[key] = quoted(value)
    return fields


def quoted(value: str) -> str:
    assert value.startswith('"') and value.endswith('"'), value
    assert all(c >= " " and c not in "\x7f\u2028\u2029" for c in value), value
    text = json.loads(value)
    assert isinstance(text, str)
    return text


def notes_of(out: Path) -> dict[str, str]:
    return {
        str(path.relative_to(out)): path.read_text(encoding="utf-8") for path in out.rglob("*.md")
    }


def check_vault(out: Path, *, users: tuple[str, ...] = ()) -> dict[str, str]:
    """Every note's frontmatter parses and every wikilink names an existing note (``users``:
    notes the user rewrote, left out of the check)."""
    found = notes_of(out)
    for name, text in found.items():
        if name in users:
            continue
        frontmatter(text)
        for target in WIKILINK.findall(text):
            assert f"{target}.md" in found, f"{name} links to missing {target}"
    return found


@pytest.mark.slow
def test_ten_thousand_observations(store: Store, tmp_path: Path) -> None:
    fill(store, 10_000)
    compare(store, 10, 4, "supersedes", confidence=1.0, reasoning="newer")
    compare(store, 20, 21, "conflicts_with", confidence=0.8, reasoning="disagree")
    out = tmp_path / "vault"
    report = export_vault(store, out, project=None)
    notes = check_vault(out)
    observation_notes = {k: v for k, v in notes.items() if k.startswith("observations/")}
    assert len(observation_notes) == 10_000
    # File names hold no control or invisible format characters (U+200B, U+FEFF, U+2028...).
    assert not [n for n in notes if any(unicodedata.category(c).startswith("C") for c in n)]
    assert "observations/acme-api/7 Invisible and line breaks 6.md" in notes
    assert report.written == len(notes) and report.kept == []
    note = notes["observations/web ui/87 Link-looking --Not a link-- text 86.md"]
    fields = frontmatter(note)
    assert fields["id"] == 87 and fields["project"] == "web ui" and fields["type"] == "discovery"
    assert "\n# Link-looking \\[[Not a link]] text 86\n" in note
    assert fields["tags"] == ["engram/discovery", "project/web-ui"]
    assert isinstance(fields["sync_id"], str) and str(fields["sync_id"]).startswith("obs-")
    assert fields["created"] == START + timedelta(minutes=86)
    first = next(v for k, v in notes.items() if k.startswith("observations/acme-api/10 "))
    assert "- supersedes [[observations/acme-api/4 " in first
    session = notes["sessions/s0000-acme-api-" + _suffix(notes, "sessions/s0000-acme-api-")]
    assert session.count("- [[observations/acme-api/") == 40
    assert "[[topics/acme-api/area-0-" in notes["projects/acme-api.md"]

    before = {p: p.stat().st_mtime_ns for p in out.rglob("*.md")}
    again = export_vault(store, out, project=None)
    assert (again.written, again.updated, again.removed, again.kept) == (0, 0, 0, [])
    assert again.unchanged == len(notes)
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.md")} == before


def _suffix(notes: dict[str, str], prefix: str) -> str:
    return next(k for k in notes if k.startswith(prefix))[len(prefix) :]


def test_a_user_edited_note_is_kept_and_reported(store: Store, tmp_path: Path) -> None:
    fill(store, 120)
    out = tmp_path / "vault"
    export_vault(store, out, project=None)
    edited = next(out.glob("observations/acme-api/3 *.md"))
    mine = edited.read_text(encoding="utf-8") + "\nMy own thoughts.\n"
    edited.write_text(mine, encoding="utf-8")
    other = next(out.glob("observations/acme-api/4 *.md"))
    for obs_id in (3, 4):
        update_observation(store, obs_id, expected_project="acme-api", content=f"New {obs_id}")
    report = export_vault(store, out, project=None)
    assert report.kept == [str(edited.relative_to(out))]
    assert report.updated == 1 and report.written == 0
    assert edited.read_text(encoding="utf-8") == mine
    assert "New 4" in other.read_text(encoding="utf-8")
    # Still kept on the next run; the other notes are left alone.
    again = export_vault(store, out, project=None)
    assert again.kept == report.kept and again.updated == 0


def test_deleted_observations_lose_their_note_unless_edited(store: Store, tmp_path: Path) -> None:
    fill(store, 80)
    out = tmp_path / "vault"
    export_vault(store, out, project=None)
    gone = next(out.glob("observations/acme-api/7 *.md"))
    kept = next(out.glob("observations/acme-api/8 *.md"))
    kept.write_text("my rewrite\n", encoding="utf-8")
    for obs_id in (7, 8):
        delete_observation(store, obs_id, expected_project="acme-api")
    report = export_vault(store, out, project=None)
    assert not gone.exists()
    assert kept.read_text(encoding="utf-8") == "my rewrite\n"
    assert report.removed == 1 and report.kept == [str(kept.relative_to(out))]
    # The session note no longer links the deleted observations.
    check_vault(out, users=(str(kept.relative_to(out)),))


def test_one_project(store: Store, tmp_path: Path) -> None:
    fill(store, 200)
    out = tmp_path / "vault"
    export_vault(store, out, project="billing")
    notes = check_vault(out)
    assert {k.split("/")[1] for k in notes if k.startswith("observations/")} == {"billing"}
    assert sorted(k for k in notes if k.startswith("projects/")) == ["projects/billing.md"]


def test_a_broken_state_file_writes_nothing(store: Store, tmp_path: Path) -> None:
    fill(store, 40)
    out = tmp_path / "vault"
    (out / ".engram").mkdir(parents=True)
    (out / ".engram" / "obsidian-export.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(EngramError) as caught:
        export_vault(store, out, project=None)
    assert caught.value.code == "obsidian.bad_state"
    assert list(out.rglob("*.md")) == []


def test_out_must_be_a_folder(store: Store, tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x", encoding="utf-8")
    with pytest.raises(EngramError) as caught:
        export_vault(store, target, project=None)
    assert caught.value.code == "obsidian.bad_out"
    assert target.read_text(encoding="utf-8") == "x"


def test_notes_not_written_by_engram_are_never_overwritten(store: Store, tmp_path: Path) -> None:
    fill(store, 40)
    out = tmp_path / "vault"
    (out).mkdir()
    (out / "Engram.md").write_text("my own index\n", encoding="utf-8")
    report = export_vault(store, out, project=None)
    assert report.kept == ["Engram.md"]
    assert (out / "Engram.md").read_text(encoding="utf-8") == "my own index\n"


def test_a_second_export_with_nothing_new_writes_nothing(store: Store, tmp_path: Path) -> None:
    fill(store, 5)
    vault = tmp_path / "vault"
    export_vault(store, vault, project=None)
    before = {p: p.stat().st_mtime_ns for p in vault.rglob("*") if p.is_file()}
    for path in before:  # any write, even of the same bytes, would move the mtime forward
        os.utime(path, ns=(0, 0))
    export_vault(store, vault, project=None)
    after = {p: p.stat().st_mtime_ns for p in vault.rglob("*") if p.is_file()}
    assert set(after) == set(before)
    assert all(mtime == 0 for mtime in after.values()), "a file was rewritten"


def test_the_default_vault_is_outside_the_project(sandbox: Sandbox) -> None:
    import subprocess
    import sys

    engram = Path(sys.executable).with_name("engram")
    subprocess.run(["git", "init", "-q"], cwd=sandbox.workspace, check=True)
    env = sandbox.env()
    subprocess.run(
        [str(engram), "save", "a note", "body"], env=env, check=True, cwd=sandbox.workspace
    )
    done = subprocess.run(
        [str(engram), "obsidian-export"],
        env=env,
        cwd=sandbox.workspace,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert str(sandbox.home / "engram-vault") in done.stdout
    assert not (sandbox.workspace / "engram-vault").exists()
