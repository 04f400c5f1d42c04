"""Every tool declares a title and an outputSchema, and its answers validate against it.

One scripted session calls every tool once with arguments that succeed, then every tool once
with arguments that fail: both kinds of ``structuredContent`` must match the published schema.
"""

from __future__ import annotations

import subprocess
from typing import Any

import anyio
from jsonschema import Draft202012Validator

from engram.server.app import EngramServer
from engram.server.options import ServerOptions
from engram.server.output_schemas import DATA
from engram.server.registry import all_tools
from engram.testing import Sandbox


def _script(first: dict[str, Any], second: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    a, b = first["result"]["id"], second["result"]["id"]
    judgment = next(
        (c["judgment_id"] for c in second["result"].get("candidates", []) if "judgment_id" in c),
        "no-such-judgment",
    )
    return [
        ("mem_update", {"id": a, "expected_project": "workspace", "title": "Rate limit login"}),
        ("mem_get_observation", {"id": a}),
        ("mem_suggest_topic_key", {"title": "Rate limiting"}),
        ("mem_capture_passive", {"content": "## Key Learnings:\n- tokens expire after an hour"}),
        ("mem_save_prompt", {"content": "add rate limiting to login"}),
        ("mem_search", {"query": "login"}),
        ("mem_context", {}),
        ("mem_timeline", {"observation_id": a}),
        ("mem_session_start", {"id": "s-1"}),
        ("mem_session_summary", {"content": "## Goal\nrate limits\n## Accomplished\n- login"}),
        ("mem_session_end", {"id": "s-1"}),
        ("mem_current_project", {}),
        ("mem_list_projects", {}),
        ("mem_doctor", {}),
        ("mem_stats", {}),
        ("mem_judge", {"judgment_id": judgment, "relation": "related"}),
        (
            "mem_compare",
            {
                "memory_id_a": a,
                "memory_id_b": b,
                "relation": "related",
                "confidence": 0.9,
                "reasoning": "same route",
            },
        ),
        ("mem_review", {"action": "list"}),
        ("mem_pin", {"id": a}),
        ("mem_unpin", {"id": a}),
        ("mem_merge_projects", {"from": "Workspace", "to": "workspace"}),
        ("engram_load", {"query": "login"}),
        ("engram_route", {"query": "login"}),
        ("engram_search", {"query": "login"}),
        ("engram_verify", {}),
        ("engram_status", {}),
        ("engram_save", {"title": "Rate limit logins", "body": "Every login route is limited."}),
        ("engram_save_session", {"candidates": [{"title": "Limit logins", "body": "Always."}]}),
        ("engram_set_role", {"roles": ["backend"]}),
        ("engram_set_rule_variant", {"mode": "full"}),
        ("engram_note", {"text": "working on login limits"}),
        ("mem_delete", {"id": b, "expected_project": "workspace"}),
    ]


async def _every_answer() -> list[tuple[str, dict[str, Any]]]:
    server = EngramServer(ServerOptions())
    first = await server.call_tool(
        "mem_save", {"title": "Rate limit login", "content": "**What** limits on /login"}
    )
    second = await server.call_tool(
        "mem_save", {"title": "Rate limit login v2", "content": "**What** limits on /login too"}
    )
    answers = [("mem_save", first), ("mem_save", second)]
    for name, arguments in _script(
        first["structuredContent"]["data"], second["structuredContent"]["data"]
    ):
        answers.append((name, await server.call_tool(name, arguments)))
    token = next(r for n, r in answers if n == "engram_save")["structuredContent"]["data"]
    commit = {"approval_token": token["approval_token"], "approve": "all"}
    answers.append(("engram_commit", await server.call_tool("engram_commit", commit)))
    for tool in all_tools():  # wrong arguments: every tool's error envelope
        answers.append((tool.name, await server.call_tool(tool.name, {"limit": "x", "id": []})))
    return answers


def test_every_tool_has_a_title_and_a_data_shape() -> None:
    for tool in all_tools():
        listed = tool.listing()
        assert listed["title"] and listed["annotations"]["title"] == listed["title"]
        assert tool.name in DATA, f"{tool.name} has no declared data shape"
        Draft202012Validator.check_schema(listed["outputSchema"])
        assert listed["outputSchema"]["type"] == "object"


def test_every_answer_validates_against_its_output_schema(sandbox: Sandbox) -> None:
    subprocess.run(["git", "init", "-q"], cwd=sandbox.workspace, check=True)
    answers = anyio.run(_every_answer)
    schemas = {t.name: Draft202012Validator(t.listing()["outputSchema"]) for t in all_tools()}
    called = {name for name, _ in answers}
    assert called == set(schemas)
    succeeded = set()
    for name, result in answers:
        content = result["structuredContent"]
        errors = [e.message for e in schemas[name].iter_errors(content)]
        assert errors == [], f"{name}: {errors} in {content}"
        if content["ok"]:
            succeeded.add(name)
    # Nearly every tool was seen succeeding, not only failing.
    assert len(succeeded) >= len(schemas) - 1, sorted(set(schemas) - succeeded)


def test_a_wrong_shape_fails_validation() -> None:
    """The schemas are not vacuous: a search answer without its result list is refused."""
    schema = Draft202012Validator(
        next(t for t in all_tools() if t.name == "mem_search").listing()["outputSchema"]
    )
    good = {"contract_version": "1", "ok": True, "data": {"result": []}, "diagnostics": []}
    assert list(schema.iter_errors(good)) == []
    assert list(schema.iter_errors({**good, "data": {"result": "text"}}))
    assert list(schema.iter_errors({**good, "ok": False, "data": {"code": 1}}))
