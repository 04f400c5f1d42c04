"""Link installs hooks, the skill, instruction blocks and rules where each host reads them."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from engram.edit.engine import apply, reverse
from engram.edit.ledger import Ledger
from engram.edit.plan import Scope
from engram.hooks import render
from engram.hosts.registry import all_hosts, find_host
from engram.testing import Sandbox
from tests.hosts.conftest import MakeContext

W, G = Scope.WORKSPACE, Scope.GLOBAL


def link(context: MakeContext, host: str, scope: Scope, **options: bool) -> None:
    ctx = context(scope, **options)
    apply([find_host(host).link_plan(ctx)], Ledger.at(ctx.data_dir))


def unlink(context: MakeContext, host: str, scope: Scope) -> None:
    ctx = context(scope)
    reverse(host, scope, Ledger.at(ctx.data_dir), root=ctx.root)


def read_json(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def test_claude_gets_hooks_block_and_skill(sandbox: Sandbox, context: MakeContext) -> None:
    link(context, "claude", W)
    hooks = read_json(sandbox.workspace / ".claude" / "settings.json")["hooks"]
    assert isinstance(hooks, dict)
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"}
    assert hooks["SessionStart"] == [
        {
            "matcher": "startup|resume|clear|compact",
            "hooks": [{"type": "command", "command": "engram hook claude", "timeout": 10}],
        }
    ]
    claude_md = (sandbox.workspace / "CLAUDE.md").read_text()
    assert "mem_session_summary" in claude_md and "engram" in claude_md
    skill = sandbox.workspace / ".claude" / "skills" / "memory-protocol" / "SKILL.md"
    assert skill.read_text() == render.skill_files()["memory-protocol/SKILL.md"]


def test_gemini_hook_timeouts_are_milliseconds(sandbox: Sandbox, context: MakeContext) -> None:
    link(context, "gemini", G)
    hooks = read_json(sandbox.home / ".gemini" / "settings.json")["hooks"]
    assert isinstance(hooks, dict)
    group = hooks["BeforeAgent"][0]
    assert group["hooks"][0]["timeout"] == 10_000
    assert group["hooks"][0]["command"] == "engram hook gemini"


def test_cursor_hooks_file_has_its_wrapper_keys(sandbox: Sandbox, context: MakeContext) -> None:
    link(context, "cursor", W)
    data = read_json(sandbox.workspace / ".cursor" / "hooks.json")
    assert data["version"] == 1
    assert data["hooks"] == {
        event: [{"command": "engram hook cursor"}]
        for event in ("sessionStart", "beforeSubmitPrompt", "preCompact", "sessionEnd")
    }
    rule = (sandbox.workspace / ".cursor" / "rules" / "engram.mdc").read_text()
    assert "alwaysApply: true" in rule


def test_codex_global_hooks_and_agents_block(sandbox: Sandbox, context: MakeContext) -> None:
    link(context, "codex", G)
    hooks = read_json(sandbox.home / ".codex" / "hooks.json")["hooks"]
    assert isinstance(hooks, dict)
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PostCompact"}
    assert "mem_context" in (sandbox.home / ".codex" / "AGENTS.md").read_text()
    config = tomllib.loads((sandbox.home / ".codex" / "config.toml").read_text())
    assert "model_instructions_file" not in config


def test_shared_system_prompts_are_never_written(sandbox: Sandbox, context: MakeContext) -> None:
    for host in all_hosts():
        for scope in (W, G):
            link(context, host, scope)
    assert not (sandbox.home / ".gemini" / "system.md").exists()
    assert not (sandbox.workspace / ".gemini" / "system.md").exists()


def test_windsurf_global_rules_keep_the_users_text(sandbox: Sandbox, context: MakeContext) -> None:
    rules = sandbox.home / ".codeium" / "windsurf" / "memories" / "global_rules.md"
    rules.parent.mkdir(parents=True)
    rules.write_text("Always answer in English.\n")
    link(context, "windsurf", G)
    text = rules.read_text()
    assert text.startswith("Always answer in English.\n")
    assert "mem_save" in text
    unlink(context, "windsurf", G)
    assert rules.read_text() == "Always answer in English.\n"


def test_existing_user_hooks_survive_link_and_unlink(
    sandbox: Sandbox, context: MakeContext
) -> None:
    settings = sandbox.workspace / ".gemini" / "settings.json"
    settings.parent.mkdir()
    original = (
        '{\n  // my own hooks\n  "hooks": {\n    "SessionStart": [\n'
        '      {"matcher": "*", "hooks": [{"type": "command", "command": "echo hi"}]}\n'
        "    ]\n  }\n}\n"
    )
    settings.write_text(original)
    link(context, "gemini", W)
    start = json.loads(
        "\n".join(line for line in settings.read_text().splitlines() if "//" not in line)
    )["hooks"]["SessionStart"]
    assert [g["hooks"][0]["command"] for g in start] == ["echo hi", "engram hook gemini"]
    unlink(context, "gemini", W)
    assert settings.read_text() == original


def test_no_hooks_leaves_hook_files_alone_and_allows_always_load(
    sandbox: Sandbox, context: MakeContext
) -> None:
    link(context, "claude", W, hooks=False, always_load=True)
    assert not (sandbox.workspace / ".claude" / "settings.json").exists()
    assert read_json(sandbox.workspace / ".mcp.json")["mcpServers"] == {
        "engram": {"type": "stdio", "command": "engram-mcp", "args": ["--always-load"]}
    }


def test_opencode_gets_the_plugin_file(sandbox: Sandbox, context: MakeContext) -> None:
    link(context, "opencode", W)
    plugin = sandbox.workspace / ".opencode" / "plugins" / "engram.js"
    assert plugin.read_text() == render.opencode_plugin()
    unlink(context, "opencode", W)
    assert not plugin.exists()
    assert not (sandbox.workspace / ".opencode").exists()
