"""Similar-project warnings, ``project.name_collision`` and ``project.ownership_ambiguous`` on
the MCP surface (issue 9, item 5; seed 003 "MCP Project Resolution"), through the real
``engram-mcp`` in repositories the user confirmed with ``engram init --confirm``."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from engram.testing import Sandbox
from tests.server.mcp_process import LiveServer, call, call_tools, engram, git_repo, initialize

CHOSEN = "user_selected_after_ambiguous_project"


def _tools(sandbox: Sandbox, folder: Path, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    return [result["structuredContent"] for result in call_tools(sandbox, folder, *calls)]


def _count(sandbox: Sandbox, sql: str) -> int:
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        return int(conn.execute(sql).fetchone()[0])


def test_a_new_project_that_looks_like_an_existing_one_warns(sandbox: Sandbox) -> None:
    engram(sandbox, sandbox.workspace, "save", "Old", "x", "--project", "acme-api")
    repo = git_repo(sandbox, "src/acmeapi")
    first, second = _tools(
        sandbox,
        repo,
        ("mem_save", {"title": "First in the new project", "content": "x"}),
        ("mem_save", {"title": "Second", "content": "y"}),
    )
    assert first["ok"] and first["data"]["project"] == "acmeapi"
    assert any("similar existing projects: acme-api" in d for d in first["diagnostics"]), first
    assert second["ok"]
    assert not any("similar" in d for d in second["diagnostics"]), second  # no longer new


def test_an_unrelated_new_project_does_not_warn(sandbox: Sandbox) -> None:
    engram(sandbox, sandbox.workspace, "save", "Old", "x", "--project", "acme-api")
    repo = git_repo(sandbox, "src/weather")
    (saved,) = _tools(sandbox, repo, ("mem_save", {"title": "Hi", "content": "x"}))
    assert saved["ok"] and not any("similar" in d for d in saved["diagnostics"]), saved


def test_an_explicit_name_collapsing_into_an_existing_project_is_refused(
    sandbox: Sandbox,
) -> None:
    engram(sandbox, sandbox.workspace, "save", "Old", "x", "--project", "foo-bar")
    repo = git_repo(sandbox, "src/elsewhere")
    refused, cased, exact = _tools(
        sandbox,
        repo,
        ("mem_save", {"title": "Collapsed", "content": "x", "project": "foo--bar"}),
        ("mem_save", {"title": "Cased", "content": "x", "project": "Foo-Bar"}),
        ("mem_save", {"title": "Exact", "content": "x", "project": "foo-bar"}),
    )
    assert not refused["ok"] and refused["data"]["code"] == "project_name_collision", refused
    assert "foo-bar" in refused["data"]["remedy"]
    assert _count(sandbox, "SELECT count(*) FROM observations WHERE title = 'Collapsed'") == 0
    assert cased["ok"] and cased["data"]["project"] == "foo-bar", cased  # case only: a warning
    assert exact["ok"], exact


def test_an_ambiguity_choice_whose_repositories_collapse_together_is_refused(
    sandbox: Sandbox,
) -> None:
    parent = sandbox.root / "monorepo"
    git_repo(sandbox, "monorepo/Foo--Bar", confirm=False)
    git_repo(sandbox, "monorepo/foo-bar", confirm=False)
    server = LiveServer(sandbox, cwd=parent)
    try:
        for line in initialize():
            server.send(line)
        asked = server.send(call(1, "mem_save", {"title": "Where", "content": "x"}))
        assert asked is not None
        first = asked["result"]["structuredContent"]["data"]
        assert first["code"] == "ambiguous_project", first
        assert first["available_projects"] == ["foo-bar"]
        choice = {
            "project": "foo-bar",
            "project_choice_reason": CHOSEN,
            "recovery_token": first["recovery_token"],
        }
        retried = server.send(call(2, "mem_save", {"title": "Where", "content": "x", **choice}))
        assert retried is not None
        refused = retried["result"]["structuredContent"]["data"]
    finally:
        assert server.close() == 0
    assert refused["code"] == "project_name_collision", refused
    assert "Foo--Bar" in refused["message"] and "foo-bar" in refused["message"]
    assert _count(sandbox, "SELECT count(*) FROM observations") == 0


def test_an_unowned_session_holding_another_projects_records_is_not_adopted(
    sandbox: Sandbox,
) -> None:
    other = git_repo(sandbox, "src/other")
    billing = git_repo(sandbox, "src/billing")
    _tools(
        sandbox,
        other,
        ("mem_session_start", {"id": "legacy-1"}),
        ("mem_save", {"title": "Other's note", "content": "x", "session_id": "legacy-1"}),
    )
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:  # a pre-ownership row
        conn.execute("UPDATE sessions SET project = '' WHERE id = 'legacy-1'")
    (refused,) = _tools(
        sandbox,
        billing,
        ("mem_save", {"title": "Billing note", "content": "y", "session_id": "legacy-1"}),
    )
    data = refused["data"]
    assert not refused["ok"] and data["code"] == "project.ownership_ambiguous", refused
    assert data["remedy"] == "engram projects rescue-ownership --project other --session legacy-1"
    assert _count(sandbox, "SELECT count(*) FROM observations WHERE title = 'Billing note'") == 0
    assert _count(sandbox, "SELECT count(*) FROM sessions WHERE project = ''") == 1
