"""The mem_* tools end to end over stdio: real store, real project detection."""

from __future__ import annotations

import sqlite3

from engram.testing import Sandbox
from tests.server.mcp_process import LiveServer, call, initialize, modern, request, run_server


def _count_observations(sandbox: Sandbox) -> int:
    db = next(sandbox.data_dir.glob("*.db"))
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM observations").fetchone()[0])


def test_save_then_search_context_and_get_in_one_session(sandbox: Sandbox) -> None:
    project = sandbox.workspace / "shop"
    project.mkdir()
    lines = [
        *initialize(1),
        call(
            2,
            "mem_save",
            {
                "title": "Chose Postgres",
                "content": "**What** <private>pw</private>",
                "type": "decision",
            },
        ),
        call(3, "mem_search", {"query": "postgres"}),
        call(4, "mem_context", {}),
        call(5, "mem_get_observation", {"id": 1}),
        call(6, "mem_current_project", {}),
    ]
    answered = run_server(sandbox, lines, cwd=project)
    saved = answered.structured(2)
    assert saved["ok"] and saved["data"]["project"] == "shop"
    assert saved["data"]["project_source"] == "dir_basename"
    assert saved["data"]["result"]["action"] == "created"
    hits = answered.structured(3)["data"]["result"]
    assert [h["title"] for h in hits] == ["Chose Postgres"]
    assert answered.result(3)["content"][0]["text"].startswith("Found 1 memory:")
    assert "[REDACTED]" in hits[0]["content"] and "pw" not in answered.stdout
    assert "Chose Postgres" in answered.result(4)["content"][0]["text"]
    assert answered.result(5)["content"][0]["text"].startswith("#1 [decision] Chose Postgres")
    current = answered.structured(6)["data"]
    assert current["project"] == "shop" and current["cwd"] == str(project.resolve())


def test_bad_arguments_are_tool_errors_and_write_nothing(sandbox: Sandbox) -> None:
    lines = [
        *initialize(1),
        call(2, "mem_save", {"title": 42, "content": "x"}),
        call(3, "mem_save", {"content": "no title"}),
        call(4, "mem_save", {"title": "big", "content": "x" * (1024 * 1024 + 10)}),
        call(5, "mem_save", "not an object"),
        call(6, "mem_search", {"query": "x", "limit": "ten"}),
        call(7, "mem_save", {"title": "t", "content": "c", "scope": "galaxy"}),
        call(8, "no_such_tool", {}),
        call(9, "mem_save", {"title": "kept", "content": "after the garbage"}),
        call(10, "mem_save", {"title": "lone \ud800", "content": "half a pair \udfff"}),
    ]
    answered = run_server(sandbox, lines)
    expected = {2: "'title'", 3: "'title'", 4: "1 MB", 6: "'limit'", 7: "'scope'"}
    expected[10] = "'title'"  # a lone surrogate is not text; named, not an internal error
    for rid, named in expected.items():
        result = answered.result(rid)
        assert result["isError"] is True
        assert named in result["content"][0]["text"]
        assert result["structuredContent"]["ok"] is False
    assert answered.error(5)["code"] == -32602
    assert "no_such_tool" in answered.error(8)["message"]
    assert answered.structured(9)["ok"] is True
    assert _count_observations(sandbox) == 1


def test_ambiguous_directory_refuses_writes_with_candidates_and_recovers(
    sandbox: Sandbox,
) -> None:
    for name in ("api", "web"):
        (sandbox.workspace / name / ".git").mkdir(parents=True)
    server = LiveServer(sandbox)
    try:
        for line in initialize(1):
            server.send(line)
        refused = server.send(call(2, "mem_save", {"title": "t", "content": "c"}))
        assert refused is not None
        error = refused["result"]["structuredContent"]["data"]
        assert error["code"] == "ambiguous_project"
        assert error["available_projects"] == ["api", "web"]
        current = server.send(call(3, "mem_current_project", {}))
        assert current is not None
        detected = current["result"]["structuredContent"]
        assert detected["ok"] and detected["data"]["project"] == ""
        assert detected["data"]["available_projects"] == ["api", "web"]
        retry = {
            "title": "t",
            "content": "c",
            "project": "web",
            "project_choice_reason": "user_selected_after_ambiguous_project",
        }
        invented = server.send(
            call(
                4,
                "mem_save",
                {**retry, "project": "mobile", "recovery_token": error["recovery_token"]},
            )
        )
        assert invented is not None
        assert (
            invented["result"]["structuredContent"]["data"]["code"] == "project.recovery_mismatch"
        )
        chosen = server.send(
            call(5, "mem_save", {**retry, "recovery_token": error["recovery_token"]})
        )
        assert chosen is not None
        assert chosen["result"]["structuredContent"]["data"]["project"] == "web"
    finally:
        assert server.close() == 0
    # A token is valid only in the process that issued it ("api" is not in the store yet).
    stale_retry = {**retry, "project": "api", "recovery_token": error["recovery_token"]}
    stale = run_server(sandbox, [*initialize(1), call(2, "mem_save", stale_retry)])
    assert stale.structured(2)["data"]["code"] == "project.recovery_expired"
    assert _count_observations(sandbox) == 1


def test_process_override_and_explicit_project_rules(sandbox: Sandbox) -> None:
    lines = [
        *initialize(1),
        call(2, "mem_save", {"title": "first", "content": "c"}),
        call(3, "mem_save", {"title": "second", "content": "c", "project": "invented"}),
        call(4, "mem_search", {"query": "first", "project": "invented"}),
        call(5, "mem_search", {"query": "first", "project": "Team-App"}),
    ]
    answered = run_server(sandbox, lines, "--project", "Team-App")
    saved = answered.structured(2)["data"]
    assert saved["project"] == "team-app" and saved["project_source"] == "process_override"
    unknown = answered.structured(3)["data"]
    assert unknown["code"] == "unknown_project" and unknown["available_projects"] == ["team-app"]
    assert answered.structured(4)["data"]["available_projects"] == ["team-app"]
    found = answered.structured(5)
    assert [h["title"] for h in found["data"]["result"]] == ["first"]
    assert any("normalized" in d for d in found["diagnostics"])


def test_modern_era_tool_call_and_bare_legacy_tool_method(sandbox: Sandbox) -> None:
    lines = [
        modern(1, "tools/call", {"name": "mem_save", "arguments": {"title": "T1", "content": "c"}}),
        *initialize(2),
        request(3, "mem_search", {"query": "T1"}),
    ]
    answered = run_server(sandbox, lines)
    modern_result = answered.result(1)
    assert modern_result["resultType"] == "complete"
    assert modern_result["structuredContent"]["data"]["result"]["action"] == "created"
    bare = answered.result(3)
    assert "T1" in bare["content"][0]["text"] and "structuredContent" not in bare


def test_update_and_delete_assert_the_owner_and_the_current_project(sandbox: Sandbox) -> None:
    lines = [
        *initialize(1),
        call(2, "mem_save", {"title": "Original", "content": "uses redis cache"}),
        call(3, "mem_update", {"id": 1, "title": "Changed"}),
        call(4, "mem_update", {"id": 1, "expected_project": "other", "title": "Changed"}),
        call(
            5,
            "mem_update",
            {"id": 1, "expected_project": "app", "find": "redis", "replace": "memcached"},
        ),
        call(6, "mem_delete", {"id": 1, "expected_project": "other"}),
        call(7, "mem_get_observation", {"id": 1}),
    ]
    answered = run_server(sandbox, lines, "--project", "app")
    assert answered.structured(3)["data"]["code"] == "server.missing_argument"
    assert answered.structured(4)["data"]["code"] == "project.not_current"
    assert answered.structured(5)["data"]["result"]["changed"] is True
    assert answered.structured(6)["data"]["code"] == "memory.project_mismatch"
    assert "uses memcached cache" in answered.result(7)["content"][0]["text"]
