"""Every tool declares a title and an outputSchema, and its answers validate against it.

One scripted session calls every tool once with arguments that succeed, then every tool once
with arguments that fail: both kinds of ``structuredContent`` must match the published schema.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator

from engram.server.app import EngramServer
from engram.server.options import ServerOptions
from engram.server.output_schemas import DATA
from engram.server.registry import all_tools
from engram.testing import Sandbox
from tests.server.mcp_process import ENGRAM_MCP
from tests.server.tool_state import fresh_tool_state

TS_CLIENT = Path(__file__).with_name("ts_sdk_client.cjs")
# Read once at import, before a sandbox points HOME elsewhere.
CACHE_AT_IMPORT = Path.home() / ".cache/engram-test"


# Every tool once, with arguments that succeed. "$A" / "$B" are the ids of the two memories saved
# first, "$TOKEN" the approval token engram_save returned (the TypeScript client uses this too).
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("mem_update", {"id": "$A", "expected_project": "workspace", "title": "Rate limit login"}),
    ("mem_get_observation", {"id": "$A"}),
    ("mem_suggest_topic_key", {"title": "Rate limiting"}),
    ("mem_capture_passive", {"content": "## Key Learnings:\n- tokens expire after an hour"}),
    ("mem_save_prompt", {"content": "add rate limiting to login"}),
    ("mem_search", {"query": "login"}),
    ("mem_context", {}),
    ("mem_timeline", {"observation_id": "$A"}),
    ("mem_session_start", {"id": "s-1"}),
    ("mem_session_summary", {"content": "## Goal\nrate limits\n## Accomplished\n- login"}),
    ("mem_session_end", {"id": "s-1"}),
    ("mem_current_project", {}),
    ("mem_list_projects", {}),
    ("mem_doctor", {}),
    ("mem_stats", {}),
    ("mem_judge", {"judgment_id": "no-such-judgment", "relation": "related"}),
    (
        "mem_compare",
        {
            "memory_id_a": "$A",
            "memory_id_b": "$B",
            "relation": "related",
            "confidence": 0.9,
            "reasoning": "same route",
        },
    ),
    ("mem_review", {"action": "list"}),
    ("mem_pin", {"id": "$A"}),
    ("mem_unpin", {"id": "$A"}),
    ("mem_merge_projects", {"from": "Workspace", "to": "workspace"}),
    ("engram_load", {"query": "login"}),
    ("engram_route", {"query": "login"}),
    ("engram_search", {"query": "login"}),
    ("engram_verify", {}),
    ("engram_status", {}),
    ("engram_save", {"title": "Rate limit logins", "body": "Every login route is limited."}),
    ("engram_save_session", {"candidates": [{"title": "Limit logins", "body": "Always."}]}),
    ("engram_commit", {"approval_token": "$TOKEN", "approve": "all"}),
    ("engram_set_role", {"roles": ["backend"]}),
    ("engram_set_rule_variant", {"mode": "full"}),
    ("engram_note", {"text": "working on login limits"}),
    ("mem_delete", {"id": "$B", "expected_project": "workspace"}),
]
# Tools that cannot succeed in a fresh store (no pending judgment, no spelling variant).
EXPECTED_ERRORS = {"mem_judge", "mem_merge_projects"}


def _substitute(value: Any, names: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, dict):
        return {k: _substitute(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, names) for v in value]
    return value


async def _every_answer() -> list[tuple[str, dict[str, Any]]]:
    server = EngramServer(ServerOptions())
    first = await server.call_tool(
        "mem_save", {"title": "Rate limit login", "content": "**What** limits on /login"}
    )
    second = await server.call_tool(
        "mem_save", {"title": "Rate limit login v2", "content": "**What** limits on /login too"}
    )
    answers = [("mem_save", first), ("mem_save", second)]
    names = {
        "$A": first["structuredContent"]["data"]["result"]["id"],
        "$B": second["structuredContent"]["data"]["result"]["id"],
    }
    for name, arguments in CALLS:
        result = await server.call_tool(name, _substitute(arguments, names))
        answers.append((name, result))
        if name == "engram_save":
            names["$TOKEN"] = result["structuredContent"]["data"]["approval_token"]
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
    # Every tool was seen succeeding, not only failing (but for the two that cannot here).
    assert set(schemas) - succeeded == EXPECTED_ERRORS


def test_a_wrong_shape_fails_validation() -> None:
    """The schemas are not vacuous: a search answer without its result list is refused."""
    schema = Draft202012Validator(
        next(t for t in all_tools() if t.name == "mem_search").listing()["outputSchema"]
    )
    good = {"contract_version": "1", "ok": True, "data": {"result": []}, "diagnostics": []}
    assert list(schema.iter_errors(good)) == []
    assert list(schema.iter_errors({**good, "data": {"result": "text"}}))
    assert list(schema.iter_errors({**good, "ok": False, "data": {"code": 1}}))


def test_the_typescript_sdk_client_accepts_every_result(sandbox: Sandbox) -> None:
    """The official TypeScript SDK validates structuredContent against each outputSchema."""
    prefix = Path(os.environ.get("ENGRAM_TEST_CACHE") or CACHE_AT_IMPORT) / "npm"
    if not (prefix / "node_modules/@modelcontextprotocol/sdk/package.json").exists():
        pytest.fail(f"{prefix} has no @modelcontextprotocol/sdk: run scripts/install-host-clis")
    subprocess.run(["git", "init", "-q"], cwd=sandbox.workspace, check=True)
    job = {
        "command": ENGRAM_MCP,
        "args": [],
        "env": sandbox.env(),
        "cwd": str(sandbox.workspace),
        "calls": CALLS,
    }
    done = subprocess.run(
        [shutil.which("node") or "node", str(TS_CLIENT), str(prefix)],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    declared = {t["name"]: t for t in seen["tools"]}
    assert set(declared) == {t.name for t in all_tools()}
    assert all(t["title"] and t["hasOutputSchema"] for t in declared.values())
    refused = [r for r in seen["results"] if not r["ok"]]
    assert refused == [], refused  # the SDK throws on a result that fails its outputSchema
    called = {r["tool"] for r in seen["results"]}
    assert called == set(declared)
    failed = {r["tool"] for r in seen["results"] if r["isError"]}
    assert failed == EXPECTED_ERRORS


__all__ = ["fresh_tool_state"]
