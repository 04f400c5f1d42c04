"""Real MCP clients from the npm registry start engram-mcp: the MCP Inspector CLI and Claude Code.

Installed by scripts/install-host-clis into ${ENGRAM_TEST_CACHE:-~/.cache/engram-test}/npm.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engram.testing import Sandbox
from tests.server.mcp_process import ENGRAM_MCP

NPM = Path(os.environ.get("ENGRAM_TEST_CACHE", Path.home() / ".cache" / "engram-test")) / "npm"
INSPECTOR = NPM / "node_modules" / ".bin" / "mcp-inspector"
CLAUDE = NPM / "node_modules" / ".bin" / "claude"

pytestmark = pytest.mark.e2e


def _inspector(sandbox: Sandbox, *args: str) -> Any:
    assert INSPECTOR.exists(), "run scripts/install-host-clis"
    result = subprocess.run(
        [str(INSPECTOR), "--cli", ENGRAM_MCP, *args],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_inspector_cli_lists_and_calls_the_tools(sandbox: Sandbox) -> None:
    listed = _inspector(sandbox, "--method", "tools/list")
    names = {tool["name"] for tool in listed["tools"]}
    assert {"mem_save", "mem_search", "mem_context", "mem_merge_projects"} <= names
    saved = _inspector(
        sandbox,
        "--method",
        "tools/call",
        "--tool-name",
        "mem_save",
        "--tool-arg",
        "title=Inspector was here",
        "--tool-arg",
        "content=**What** an end-to-end save",
    )
    assert saved["structuredContent"]["ok"] is True
    found = _inspector(
        sandbox,
        "--method",
        "tools/call",
        "--tool-name",
        "mem_search",
        "--tool-arg",
        "query=inspector",
    )
    assert "Inspector was here" in found["content"][0]["text"]


def test_claude_code_reports_the_server_connected(sandbox: Sandbox) -> None:
    assert CLAUDE.exists(), "run scripts/install-host-clis"
    workspace = sandbox.workspace
    server = {"type": "stdio", "command": ENGRAM_MCP, "args": [], "env": {}}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"engram": server}}))
    (workspace / ".claude").mkdir()
    settings = {"enabledMcpjsonServers": ["engram"]}
    (workspace / ".claude" / "settings.local.json").write_text(json.dumps(settings))
    # Claude Code also keeps a project's servers pending until its folder is trusted.
    trust = {"projects": {str(workspace): {"hasTrustDialogAccepted": True}}}
    (sandbox.home / ".claude.json").write_text(json.dumps(trust))
    result = subprocess.run(
        [str(CLAUDE), "mcp", "list"],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=workspace,
        timeout=120,
    )
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("engram:"))
    assert "Connected" in line, result.stdout + result.stderr


def test_inspector_cli_sees_resources_and_prompts_on_a_fresh_connection(
    sandbox: Sandbox,
) -> None:
    resources = _inspector(sandbox, "--method", "resources/list")
    assert "engram://index" in [r["uri"] for r in resources["resources"]]
    templates = _inspector(sandbox, "--method", "resources/templates/list")
    assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == ["engram://memory/{id}"]
    prompts = _inspector(sandbox, "--method", "prompts/list")
    assert [p["name"] for p in prompts["prompts"]] == ["propose"]
    got = _inspector(sandbox, "--method", "prompts/get", "--prompt-name", "propose")
    assert "proposal protocol" in got["messages"][0]["content"]["text"]
    read = _inspector(sandbox, "--method", "resources/read", "--uri", "engram://index")
    assert read["contents"][0]["uri"] == "engram://index"
