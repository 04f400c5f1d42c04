"""Governed reads surface matching journal entries, labelled, never inside the approved pack."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox
from tests.server.tool_state import fresh_tool_state

ENGRAM = str(Path(sys.executable).with_name("engram"))


def engram(sandbox: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [ENGRAM, *args],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_load_finds_the_journal_entry_labelled(sandbox: Sandbox) -> None:
    engram(sandbox, "save", "Rate limit login", "**What** 5 tries a minute on /login")
    engram(sandbox, "save", "Docs layout", "**What** add docs pages to the readme index")
    text = engram(sandbox, "load", "add rate limiting to login").stdout
    assert "## From the journal (recorded by agents; not approved rules)" in text
    assert "#1 [manual] Rate limit login" in text
    assert "Docs layout" not in text  # one shared common word is not a match
    data = json.loads(engram(sandbox, "load", "add rate limiting to login", "--json").stdout)
    assert [(j["title"], j["tier"], j["approved"]) for j in data["journal"]] == [
        ("Rate limit login", "journal", False)
    ]
    assert data["body_keys"] == [] and data["card_ids"] == []  # nothing mixed into the pack


def test_approved_rules_and_journal_entries_stay_apart(sandbox: Sandbox) -> None:
    import anyio

    from engram.server.app import EngramServer
    from engram.server.options import ServerOptions

    engram(sandbox, "save", "Rate limit login", "**What** 5 tries a minute on /login")

    async def scenario() -> tuple[dict[str, object], dict[str, object]]:
        server = EngramServer(ServerOptions())
        proposal = await server.call_tool(
            "engram_save",
            {"title": "Limit login attempts", "body": "Every login route is rate limited."},
        )
        token = proposal["structuredContent"]["data"]["approval_token"]
        await server.call_tool("engram_commit", {"approval_token": token, "approve": "all"})
        load = await server.call_tool("engram_load", {"query": "add rate limiting to login"})
        search = await server.call_tool("engram_search", {"query": "rate limit login"})
        return load, search

    load, search = anyio.run(scenario)
    data = load["structuredContent"]["data"]  # type: ignore[index]
    text = load["content"][0]["text"]  # type: ignore[index]
    assert len(data["body_keys"]) == 1 and [j["title"] for j in data["journal"]] == [
        "Rate limit login"
    ]
    approved, journal = text.split("## From the journal")
    assert "Limit login attempts" in approved and "Rate limit login" not in approved
    assert "Rate limit login" in journal
    found = search["structuredContent"]["data"]  # type: ignore[index]
    assert [e["title"] for e in found["entries"]] == ["Limit login attempts"]
    assert [j["title"] for j in found["journal"]] == ["Rate limit login"]


def test_an_empty_query_loads_no_journal(sandbox: Sandbox) -> None:
    engram(sandbox, "save", "Rate limit login", "**What** 5 tries")
    data = json.loads(engram(sandbox, "load", "--json").stdout)
    assert data["journal"] == []


__all__ = ["fresh_tool_state"]
