"""A save without ``session_id`` joins the live session of its directory (issue 9, item 5).

Through the real ``engram-mcp``, in a fresh git repository the user confirmed with
``engram init --confirm`` (issue 10's project binding): ``mem_session_start`` then ``mem_save``
without a session id lands in that session. Two live sessions fail closed; an ended session
is never used; an unconfirmed repository is refused before any session is looked at.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from engram.testing import Sandbox
from tests.server.mcp_process import call_tools, git_repo


def _session_of(sandbox: Sandbox, title: str) -> str:
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        row = conn.execute("SELECT session_id FROM observations WHERE title = ?", (title,))
        return str(row.fetchone()[0])


def _error(result: dict[str, Any]) -> dict[str, Any]:
    assert result.get("isError"), result
    return result["structuredContent"]["data"]  # type: ignore[no-any-return]


def test_save_without_session_id_goes_to_the_live_session(sandbox: Sandbox) -> None:
    repo = git_repo(sandbox, "src/billing")
    started, saved, prompt = call_tools(
        sandbox,
        repo,
        ("mem_session_start", {"id": "claude-1"}),
        ("mem_save", {"title": "Retry invoices nightly", "content": "cron at 02:00"}),
        ("mem_save_prompt", {"content": "make invoices retry"}),
        ("mem_session_summary", {"content": "## Goal\nRetry invoices"}),
    )[:3]
    assert not started.get("isError") and not saved.get("isError"), saved
    assert saved["structuredContent"]["data"]["project"] == "billing"
    assert _session_of(sandbox, "Retry invoices nightly") == "claude-1"
    assert not prompt.get("isError"), prompt
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        rows = conn.execute("SELECT session_id FROM user_prompts").fetchall()
    assert rows == [("claude-1",)]
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        kinds = conn.execute("SELECT type, session_id FROM observations ORDER BY id").fetchall()
    assert [s for _, s in kinds] == ["claude-1", "claude-1"], kinds


def test_no_live_session_saves_to_the_manual_session(sandbox: Sandbox) -> None:
    repo = git_repo(sandbox, "src/billing")
    call_tools(
        sandbox,
        repo,
        ("mem_session_start", {"id": "claude-1"}),
        ("mem_session_end", {"id": "claude-1"}),
        ("mem_save", {"title": "After the session", "content": "x"}),
    )
    assert _session_of(sandbox, "After the session") == "manual-save-billing"


def test_two_live_sessions_fail_closed_and_session_id_still_wins(sandbox: Sandbox) -> None:
    repo = git_repo(sandbox, "src/billing")
    *_, refused, named = call_tools(
        sandbox,
        repo,
        ("mem_session_start", {"id": "claude-1"}),
        ("mem_session_start", {"id": "claude-2"}),
        ("mem_save", {"title": "Which one", "content": "x"}),
        ("mem_save", {"title": "Named", "content": "y", "session_id": "claude-2"}),
    )
    error = _error(refused)
    assert error["code"] == "memory.live_session_ambiguous", error
    assert "claude-1" in error["message"] and "claude-2" in error["message"]
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        assert (
            conn.execute("SELECT count(*) FROM observations WHERE title = 'Which one'").fetchone()[
                0
            ]
            == 0
        )
    assert not named.get("isError"), named
    assert _session_of(sandbox, "Named") == "claude-2"


def test_a_session_of_another_directory_is_not_joined(sandbox: Sandbox) -> None:
    billing = git_repo(sandbox, "src/billing")
    other = git_repo(sandbox, "src/shipping")
    call_tools(sandbox, other, ("mem_session_start", {"id": "ship-1"}))
    (saved,) = call_tools(sandbox, billing, ("mem_save", {"title": "Billing only", "content": "x"}))
    assert not saved.get("isError"), saved
    assert _session_of(sandbox, "Billing only") == "manual-save-billing"


def test_unconfirmed_clone_gets_no_session_and_no_save(sandbox: Sandbox) -> None:
    git_repo(sandbox, "src/billing", remote="git@github.com:team/billing.git")
    clone = git_repo(
        sandbox, "src/clone/billing", remote="https://github.com/evil/billing", confirm=False
    )
    started, saved = call_tools(
        sandbox,
        clone,
        ("mem_session_start", {"id": "claude-1"}),
        ("mem_save", {"title": "Not yet", "content": "x"}),
    )
    assert _error(started)["code"] == "project.unconfirmed"
    assert _error(saved)["code"] == "project.unconfirmed"
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        assert conn.execute("SELECT count(*) FROM observations").fetchone()[0] == 0
        assert (
            conn.execute("SELECT count(*) FROM sessions WHERE id = 'claude-1'").fetchone()[0] == 0
        )


def test_passive_capture_joins_the_live_session_and_respects_the_binding(
    sandbox: Sandbox,
) -> None:
    repo = git_repo(sandbox, "src/billing", remote="git@github.com:team/billing.git")
    learnings = "Done.\n\n## Key Learnings:\n1. Invoices retry at 02:00 UTC\n"
    _, captured = call_tools(
        sandbox,
        repo,
        ("mem_session_start", {"id": "claude-1"}),
        ("mem_capture_passive", {"content": learnings}),
    )
    assert not captured.get("isError"), captured
    assert _session_of(sandbox, "Invoices retry at 02:00 UTC") == "claude-1"
    clone = git_repo(
        sandbox, "src/clone/billing", remote="https://github.com/evil/billing", confirm=False
    )
    (refused,) = call_tools(sandbox, clone, ("mem_capture_passive", {"content": learnings}))
    assert _error(refused)["code"] == "project.unconfirmed"
