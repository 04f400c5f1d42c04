"""``engram import --from claude-mem|basic-memory|mcp-memory-service PATH``: every record
arrives as an observation (project, type, timestamps, provenance), a second run adds nothing,
a long import shows progress, a file that is not the tool's store is refused in one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engram.testing import Sandbox
from tests.importers import peer_stores
from tests.importers.conftest import Run


def observations(sandbox: Sandbox) -> list[dict[str, object]]:
    conn = sqlite3.connect(sandbox.data_dir / "engram.db")
    conn.row_factory = sqlite3.Row
    try:
        return [
            dict(r)
            for r in conn.execute(
                "SELECT title, content, project, type, session_id, topic_key, created_at,"
                " updated_at, deleted_at FROM observations ORDER BY id"
            )
        ]
    finally:
        conn.close()


def prompts(sandbox: Sandbox) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(sandbox.data_dir / "engram.db")
    try:
        return [
            tuple(r) for r in conn.execute("SELECT content, project, session_id FROM user_prompts")
        ]
    finally:
        conn.close()


@pytest.mark.parametrize("newer_names", [False, True])
def test_claude_mem(sandbox: Sandbox, cli: Run, newer_names: bool) -> None:
    db = peer_stores.claude_mem(sandbox.root / "claude-mem.db", newer_names=newer_names)
    first = cli("import", "--from", "claude-mem", str(db), "--json")
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    assert (summary["sessions"], summary["observations"], summary["prompts"]) == (2, 4, 2)
    rows = observations(sandbox)
    assert [(r["title"], r["project"], r["type"], r["created_at"]) for r in rows] == [
        ("Login retried twice", "shop", "bugfix", "2025-01-01 09:10:00"),
        ("Remember me", "shop", "learning", "2025-01-01 09:20:00"),
        ("raw legacy text", "blog", "discovery", "2025-01-02 09:10:00"),
        ("Session summary: fix login", "shop", "session_summary", "2025-01-01 09:59:00"),
    ]
    first_text = str(rows[0]["content"])
    for part in ("Null token check", "tokens can be null", "Files modified: src/auth.ts"):
        assert part in first_text
    assert first_text.endswith(f"(imported from claude-mem: observation #1 of {db})")
    assert "Learned: tokens can be null" in str(rows[3]["content"])
    assert rows[0]["session_id"] == "claude-mem-cc-1"
    assert sorted(prompts(sandbox)) == [
        ("add an rss feed", "blog", "claude-mem-cc-2"),
        ("fix the login", "shop", "claude-mem-cc-1"),
    ]
    again = json.loads(cli("import", "--from", "claude-mem", str(db), "--json").stdout)
    assert (again["observations"], again["sessions"], again["prompts"]) == (0, 0, 0)
    assert again["skipped"] == summary["read"] == 8
    found = cli("search", "cookie", "--project", "shop", "--json")
    assert [hit["title"] for hit in json.loads(found.stdout)["results"]] == ["Remember me"]


def test_mcp_memory_service(sandbox: Sandbox, cli: Run) -> None:
    db = peer_stores.memory_service(sandbox.root / "sqlite_vec.db")
    result = cli("import", "--from", "mcp-memory-service", str(db), "--project", "team")
    assert result.returncode == 0, result.stderr
    assert "imported 4 observations, 1 session, 0 prompts" in result.stdout
    rows = observations(sandbox)
    assert {r["project"] for r in rows} == {"team"}
    assert [(r["type"], r["created_at"], r["deleted_at"]) for r in rows] == [
        ("decision", "2025-01-01 09:00:00", None),
        ("discovery", "2025-01-01 09:01:40", None),
        ("manual", "2025-01-01 09:03:20", None),
        ("manual", "2025-01-01 09:05:00", "2025-01-01 09:06:40"),
    ]
    assert "Tags: style, review" in str(rows[2]["content"])
    assert "(imported from mcp-memory-service: memory h-1 of" in str(rows[0]["content"])
    again = cli("import", "--from", "mcp-memory-service", str(db), "--project", "team", "--json")
    assert json.loads(again.stdout)["observations"] == 0


def test_mcp_memory_service_projects_from_metadata_and_tags(sandbox: Sandbox, cli: Run) -> None:
    db = peer_stores.memory_service(sandbox.root / "sqlite_vec.db")
    assert cli("import", "--from", "mcp-memory-service", str(db)).returncode == 0
    projects = [r["project"] for r in observations(sandbox)]
    assert projects == ["infra", "infra", "workspace", "workspace"]  # the rest: current project


def test_a_long_import_shows_progress(sandbox: Sandbox, cli: Run) -> None:
    db = peer_stores.memory_service(sandbox.root / "sqlite_vec.db", extra=1100)
    result = cli("import", "--from", "mcp-memory-service", str(db), "--project", "bulk")
    assert result.returncode == 0, result.stderr
    assert "mcp-memory-service: 500 of 1105 records read" in result.stderr
    assert "mcp-memory-service: 1105 of 1105 records read" in result.stderr
    assert "imported 1104 observations" in result.stdout


def test_basic_memory(sandbox: Sandbox, cli: Run) -> None:
    folder = peer_stores.basic_memory(sandbox.root / "notes", sandbox.home)
    result = cli("import", "--from", "basic-memory", str(folder), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["observations"] == 3
    rows = {r["title"]: r for r in observations(sandbox)}
    assert set(rows) == {"Use Postgres", "Order Service", "Loose thoughts without front matter"}
    postgres = rows["Use Postgres"]
    assert (postgres["project"], postgres["type"], postgres["topic_key"]) == (
        "research",
        "decision",
        "basic-memory/decisions/use-postgres",
    )
    assert postgres["created_at"] == "2025-02-01 10:00:00"
    text = str(postgres["content"])
    assert "- [decision] Postgres for orders #database" in text
    assert "- relates_to [[Order Service]]" in text and "Tags: database, architecture" in text
    assert "(imported from basic-memory: note decisions/use-postgres.md of" in text
    again = json.loads(cli("import", "--from", "basic-memory", str(folder), "--json").stdout)
    assert again["observations"] == 0 and again["skipped"] == 4


@pytest.mark.parametrize("tool", ["claude-mem", "mcp-memory-service", "basic-memory"])
def test_a_file_that_is_not_the_tool_store_is_refused(
    sandbox: Sandbox, cli: Run, tool: str
) -> None:
    other = sandbox.root / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE bookmarks (url TEXT)")
    conn.commit()
    conn.close()
    for path in (other, sandbox.root / "missing.db", sandbox.workspace):
        result = cli("import", "--from", tool, str(path))
        assert result.returncode == 1, (tool, path)
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert f"is not a {tool} store" in result.stderr
    assert not (sandbox.data_dir / "engram.db").exists() or observations(sandbox) == []


def test_an_unknown_tool_is_refused(sandbox: Sandbox, cli: Run) -> None:
    result = cli("import", "--from", "mem0", str(sandbox.root))
    assert result.returncode == 1 and "cannot import from 'mem0'" in result.stderr


def test_a_text_file_is_not_a_claude_mem_store(sandbox: Sandbox, cli: Run) -> None:
    path: Path = sandbox.root / "notes.txt"
    path.write_text("hello", encoding="utf-8")
    result = cli("import", "--from", "claude-mem", str(path))
    assert result.returncode == 1 and "is not a claude-mem store" in result.stderr


def test_hostile_fields_are_read_as_text_not_expanded(sandbox: Sandbox, cli: Run) -> None:
    db = peer_stores.memory_service(sandbox.root / "sqlite_vec.db")
    conn = sqlite3.connect(db)
    deep = "[" * 100_000 + "]" * 100_000
    conn.execute(
        "UPDATE memories SET metadata = ?, tags = ? WHERE content_hash = 'h-3'", (deep, deep)
    )
    conn.commit()
    conn.close()
    result = cli("import", "--from", "mcp-memory-service", str(db), "--project", "team")
    assert result.returncode == 0, result.stderr
    assert "imported 4 observations" in result.stdout
    folder = peer_stores.basic_memory(sandbox.root / "notes", sandbox.home)
    bomb = "\n".join(
        ["---", "permalink: bomb", 'a: &a ["x","x","x","x","x","x","x","x","x"]']
        + [f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
           f"*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]"
           for i in range(12)]
        + ["title: *m", "---", "Body of a hostile note"]
    )  # fmt: skip
    (folder / "bomb.md").write_text(bomb, encoding="utf-8")
    result = cli("import", "--from", "basic-memory", str(folder), "--json")
    assert result.returncode == 0, result.stderr
    titles = [r["title"] for r in observations(sandbox)]
    assert "Body of a hostile note" in titles
