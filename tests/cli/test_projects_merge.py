"""``engram projects merge`` across unrelated names: rows move, the journal records it, bad
names are refused with one line and nothing changes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from engram.testing import Sandbox

Run = Callable[..., subprocess.CompletedProcess[str]]


def ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, result.stderr
    return result


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


def rows(sandbox: Sandbox) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the tables a merge touches, plus the sync journal, read-only."""
    conn = sqlite3.connect(f"file:{sandbox.data_dir / 'engram.db'}?mode=ro", uri=True)
    try:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            for table in ("sessions", "observations", "user_prompts", "sync_mutations")
        }
    finally:
        conn.close()


def names(cli: Run) -> set[str]:
    listed = json.loads(ok(cli("projects", "list", "--json")).stdout)["projects"]
    return {entry["name"] for entry in listed}


@pytest.fixture
def two_projects(cli: Run) -> None:
    ok(cli("save", "Invoice rounding", "round half even", "--project", "billing"))
    ok(cli("save", "Retry queue", "three tries then park", "--project", "billing"))
    ok(cli("save", "Auth model", "cookie sessions", "--project", "acme"))


@pytest.mark.usefixtures("two_projects")
def test_any_project_merges_into_any_other_and_is_journaled(cli: Run, sandbox: Sandbox) -> None:
    before = rows(sandbox)
    preview = ok(cli("projects", "merge", "--from", "billing", "--to", "acme", "--dry-run"))
    assert "would move 2 observations" in preview.stdout
    assert rows(sandbox) == before and names(cli) == {"billing", "acme"}

    done = json.loads(
        ok(
            cli("projects", "merge", "--from", "billing", "--to", "acme", "--apply", "--json")
        ).stdout
    )
    assert done["applied"] and done["total"]["observations"] == 2
    assert names(cli) == {"acme"}
    found = ok(cli("search", "rounding", "--project", "acme")).stdout
    assert "Invoice rounding" in found

    journal = rows(sandbox)["sync_mutations"]
    new = journal[len(before["sync_mutations"]) :]
    moved = [row for row in new if "Invoice rounding" in str(row) or "Retry queue" in str(row)]
    assert len(moved) == 2 and all("acme" in str(row) for row in moved)


@pytest.mark.usefixtures("two_projects")
def test_cloud_enrollment_follows_the_merged_rows(cli: Run, sandbox: Sandbox) -> None:
    ok(cli("cloud", "enroll", "billing"))
    ok(cli("projects", "merge", "--from", "billing", "--to", "acme", "--apply"))
    conn = sqlite3.connect(f"file:{sandbox.data_dir / 'engram.db'}?mode=ro", uri=True)
    try:
        enrolled = [row[0] for row in conn.execute("SELECT project FROM sync_enrolled_projects")]
    finally:
        conn.close()
    assert enrolled == ["acme"]


@pytest.mark.usefixtures("two_projects")
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--from", "billing", "--to", "inbox"], "reserved inbox"),
        (["--from", "billing", "--to", "In-Box"], "reserved inbox"),
        (["--from", "nosuch", "--to", "acme"], "known: acme, billing"),
        (["--from", "billing", "--to", "nosuch"], "known: acme, billing"),
        (["--from", "acme", "--to", "acme"], "both the source and the target"),
    ],
)
def test_bad_merge_names_change_nothing(
    cli: Run, sandbox: Sandbox, args: list[str], expected: str
) -> None:
    before = rows(sandbox)
    for mode in ("--dry-run", "--apply"):
        assert expected in one_line_error(cli("projects", "merge", *args, mode))
    assert rows(sandbox) == before


@pytest.mark.usefixtures("two_projects")
def test_merge_needs_exactly_one_mode(cli: Run, sandbox: Sandbox) -> None:
    before = rows(sandbox)
    assert cli("projects", "merge", "--from", "billing", "--to", "acme").returncode == 2
    both = cli("projects", "merge", "--from", "billing", "--to", "acme", "--dry-run", "--apply")
    assert both.returncode == 2
    assert rows(sandbox) == before
