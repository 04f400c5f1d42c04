"""Resources and prompts answer in full on a fresh connection, before any tools/list, in both
protocol eras; a bad ``mcp.resource_limit`` is a named JSON-RPC error, not code 0."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engram.testing import Sandbox
from tests.server.mcp_process import initialize, modern, request, run_server

INDEX = "engram://index"


def _fresh_requests(era: str) -> list[str]:
    """Every resource and prompt method, first thing on the connection (no tools/list)."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("resources/list", {}),
        ("resources/templates/list", {}),
        ("resources/read", {"uri": INDEX}),
        ("prompts/list", {}),
        ("prompts/get", {"name": "propose", "arguments": {"focus": "auth"}}),
    ]
    if era == "modern":
        return [modern(i, method, params) for i, (method, params) in enumerate(calls, 1)]
    lines = initialize(0)
    lines += [request(i, method, params or None) for i, (method, params) in enumerate(calls, 1)]
    return lines


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_fresh_connection_sees_every_resource_and_prompt(sandbox: Sandbox, era: str) -> None:
    answered = run_server(sandbox, _fresh_requests(era))
    assert answered.returncode == 0, answered.stderr
    resources = answered.result(1)["resources"]
    assert INDEX in [r["uri"] for r in resources]
    templates = answered.result(2)["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["engram://memory/{id}"]
    contents = answered.result(3)["contents"]
    assert contents[0]["uri"] == INDEX and "no governed memory" in contents[0]["text"]
    assert [p["name"] for p in answered.result(4)["prompts"]] == ["propose"]
    text = answered.result(5)["messages"][0]["content"]["text"]
    assert "proposal protocol" in text and "Focus on: auth" in text
    # No tool module was listed first, and no answer was served from an empty catalog.
    assert not any("tools" in m.get("result", {}) for m in answered.messages)


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("limit", [500, -1, "20"])
def test_resource_limit_out_of_range_is_a_named_error(
    sandbox: Sandbox, era: str, limit: object
) -> None:
    sandbox.data_dir.mkdir(parents=True, exist_ok=True)
    config = {"mcp": {"resource_limit": limit}}
    (sandbox.data_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")
    line = modern(7, "resources/list") if era == "modern" else request(7, "resources/list")
    lines = [line] if era == "modern" else [*initialize(0), line]
    answered = run_server(sandbox, lines)
    error = answered.error(7)
    assert error["code"] == -32603
    assert error["data"] == {"code": "config.out_of_range"}
    assert "mcp.resource_limit" in error["message"] and "0 to 200" in error["message"]
    assert "Traceback" not in answered.stderr
