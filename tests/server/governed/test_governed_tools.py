"""The governed tools as a host sees them: listing, reads, resources, the propose prompt."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest
from governed_client import Client, data
from mcp.shared.exceptions import MCPError

from engram.testing import Sandbox

RULE = {"title": "Run ruff", "body": "ruff check and format must pass.", "type": "rule"}
GOTCHA = {"title": "FTS ties", "body": "Sort FTS ties by id.", "type": "gotcha"}


def save_and_commit(client: Client, arguments: dict[str, object]) -> None:
    token = data(client.call("engram_save", arguments))["approval_token"]
    assert (
        client.call("engram_commit", {"approval_token": token, "approve": [1]})["isError"] is False
    )


def test_listing_hints_and_meta(sandbox: Sandbox) -> None:
    client = Client(sandbox, "--always-load", capabilities={})
    try:
        tools = {t["name"]: t for t in client.request("tools/list", {})["result"]["tools"]}
    finally:
        client.close()
    for name in ("engram_load", "engram_route", "engram_search", "engram_verify", "engram_status"):
        assert tools[name]["annotations"]["readOnlyHint"] is True
    assert tools["engram_commit"]["_meta"] == {"anthropic/requiresUserInteraction": True}
    assert tools["engram_load"]["_meta"] == {"anthropic/alwaysLoad": True}
    note = tools["engram_note"]["annotations"]
    assert note["readOnlyHint"] is False and "destructiveHint" not in note
    assert tools["engram_commit"]["inputSchema"]["required"] == ["approval_token", "approve"]


def test_reads_resources_and_prompt(sandbox: Sandbox) -> None:
    sandbox.data_dir.mkdir(parents=True, exist_ok=True)
    (sandbox.data_dir / "config.json").write_text(json.dumps({"mcp": {"resource_limit": 1}}))
    client = Client(sandbox, capabilities={})
    try:
        save_and_commit(client, RULE)
        save_and_commit(client, GOTCHA)

        load = data(client.call("engram_load", {"query": "fix FTS ties", "budget_tokens": 400}))
        assert set(load) >= {"selected_keys", "body_keys", "card_ids", "omitted_ids", "tokens"}
        assert load["tokens"] <= 400 and "gotcha/fts-ties" in load["body_keys"]
        route = data(client.call("engram_route", {"query": "fix FTS ties"}))
        assert [e["id"] for e in route["entries"]] == ["run-ruff", "fts-ties"]
        assert set(route["entries"][0]) >= {"id", "type", "scope", "score"}
        search = data(client.call("engram_search", {"query": "ties"}))
        assert search["entries"][0]["id"] == "fts-ties"
        assert data(client.call("engram_verify", {}))["ok"] is True
        assert data(client.call("engram_status", {}))["durable"] == 2

        # Two fetches make fts-ties the most used memory: it is the one resource listed.
        for _ in range(2):
            read = client.request("resources/read", {"uri": "engram://memory/fts-ties"})
            assert "Sort FTS ties by id." in read["result"]["contents"][0]["text"]
        listed = client.request("resources/list", {})["result"]["resources"]
        assert [r["uri"] for r in listed] == ["engram://index", "engram://memory/fts-ties"]
        index = client.request("resources/read", {"uri": "engram://index"})["result"]
        assert "- [rule] run-ruff: Run ruff" in index["contents"][0]["text"]
        missing = client.request("resources/read", {"uri": "engram://memory/nope"})
        assert "error" in missing

        prompts = client.request("prompts/list", {})["result"]["prompts"]
        assert [p["name"] for p in prompts] == ["propose"]
        got = client.request("prompts/get", {"name": "propose", "arguments": {}})["result"]
        assert "engram_commit" in got["messages"][0]["content"]["text"]

        bad = client.call("engram_load", {"query": "x", "budget_tokens": -1})
        assert bad["isError"] is True
    finally:
        client.close()


def test_an_expired_state_is_invalid_params(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engram.memory.governed import resolve_workspace
    from engram.server import governed_approval as approval
    from engram.server.registry import ToolCall

    state = approval.seal_state(
        {
            "v": 1,
            "n": "x",
            "tool": "engram_save",
            "ws": str(sandbox.workspace),
            "args": "",
            "exp": int(time.time()) - 1,
        }
    )
    request = SimpleNamespace(params={"requestState": state, "inputResponses": {}})
    call = ToolCall("engram_save", {}, [], request)
    kb = SimpleNamespace(workspace=resolve_workspace(sandbox.workspace, "demo"))
    with pytest.raises(MCPError) as err:
        approval.finish_retry(call, kb)  # type: ignore[arg-type]
    assert err.value.error.code == -32602 and "expired" in err.value.error.message
