"""The MCP SDK's own client talks to engram-mcp in both protocol eras."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from engram.server.app import INSTRUCTIONS
from engram.testing import Sandbox
from tests.server.mcp_process import ENGRAM_MCP


async def _session(sandbox: Sandbox, mode: str) -> dict[str, Any]:
    params = StdioServerParameters(
        command=ENGRAM_MCP, args=[], env=sandbox.env(), cwd=str(sandbox.workspace)
    )
    async with Client(params, mode=mode) as client:
        tools = await client.list_tools()
        saved = await client.call_tool(
            "mem_save", {"title": f"Saved in {mode} mode", "content": "**What** a test"}
        )
        found = await client.call_tool("mem_search", {"query": "saved"})
        bad = await client.call_tool("mem_search", {"query": 3})
        return {
            "version": client.protocol_version,
            "tools": [t.name for t in tools.tools],
            "saved": saved.structured_content,
            "found": found.structured_content,
            "bad": (bad.is_error, bad.content[0].text),  # type: ignore[union-attr]
            "instructions": client.instructions,
        }


@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
def test_sdk_client_lists_saves_and_searches(sandbox: Sandbox, mode: str, version: str) -> None:
    seen = anyio.run(_session, sandbox, mode)
    assert seen["version"] == version
    assert len([n for n in seen["tools"] if n.startswith("mem_")]) == 23
    assert seen["saved"]["ok"] is True
    titles = [hit["title"] for hit in seen["found"]["data"]["result"]]
    assert f"Saved in {mode} mode" in titles
    is_error, text = seen["bad"]
    assert is_error and "'query'" in text
    assert seen["instructions"] == INSTRUCTIONS
