"""What each host asks to be written, per scope: the files and entries a user will find."""

from __future__ import annotations

import json

import pytest

from engram.edit.plan import DocFormat, RemoveValue, Scope, SetValue
from engram.hosts.registry import find_host
from engram.testing import Sandbox
from tests.hosts.conftest import MakeContext

W, G = Scope.WORKSPACE, Scope.GLOBAL

EXPECTED = [
    ("claude", W, ".mcp.json", DocFormat.JSON, ("mcpServers", "engram"),
     {"type": "stdio", "command": "engram-mcp", "args": []}),
    ("gemini", W, ".gemini/settings.json", DocFormat.JSONC, ("mcpServers", "engram"),
     {"command": "engram-mcp", "args": []}),
    ("gemini", G, "~/.gemini/settings.json", DocFormat.JSONC, ("mcpServers", "engram"),
     {"command": "engram-mcp", "args": []}),
    ("cursor", W, ".cursor/mcp.json", DocFormat.JSON, ("mcpServers", "engram"),
     {"type": "stdio", "command": "engram-mcp", "args": []}),
    ("cursor", G, "~/.cursor/mcp.json", DocFormat.JSON, ("mcpServers", "engram"),
     {"type": "stdio", "command": "engram-mcp", "args": []}),
    ("opencode", W, "opencode.json", DocFormat.JSONC, ("mcp", "engram"),
     {"type": "local", "command": ["engram-mcp"], "args": [], "enabled": True}),
    ("opencode", G, "~/.config/opencode/opencode.jsonc", DocFormat.JSONC, ("mcp", "engram"),
     {"type": "local", "command": ["engram-mcp"], "args": [], "enabled": True}),
    ("windsurf", G, "~/.codeium/windsurf/mcp_config.json", DocFormat.JSON, ("mcpServers", "engram"),
     {"command": "engram-mcp", "args": []}),
    ("antigravity", W, ".agents/mcp_config.json", DocFormat.JSON, ("mcpServers", "engram"),
     {"command": "engram-mcp", "args": []}),
    ("antigravity", G, "~/.gemini/config/mcp_config.json", DocFormat.JSON, ("mcpServers", "engram"),
     {"command": "engram-mcp", "args": []}),
    ("codex", G, "~/.codex/config.toml", DocFormat.TOML, ("mcp_servers", "engram"),
     {"command": "engram-mcp", "args": [],
      "tools": {"engram_commit": {"approval_mode": "approve"}}}),
]  # fmt: skip


@pytest.mark.parametrize(("host", "scope", "file", "fmt", "keys", "entry"), EXPECTED)
def test_link_plan_sets_the_engram_entry(
    sandbox: Sandbox, context: MakeContext, host: str, scope: Scope, file: str,
    fmt: DocFormat, keys: tuple[str, ...], entry: dict[str, object],
) -> None:  # fmt: skip
    plan = find_host(host).link_plan(context(scope))
    path = sandbox.home / file[2:] if file.startswith("~/") else sandbox.workspace / file
    assert plan.edits[0] == SetValue(path, fmt, keys, entry)  # hooks, skill, blocks follow
    assert plan.notices == []


@pytest.mark.parametrize(
    ("host", "scope", "word"), [("codex", W, "--global"), ("windsurf", W, "skipped")]
)
def test_unsupported_scope_is_a_notice_not_an_edit(
    context: MakeContext, host: str, scope: Scope, word: str
) -> None:
    plan = find_host(host).link_plan(context(scope))
    assert not [e for e in plan.edits if isinstance(e, SetValue) and "mcp" in e.file.name]
    assert word in " ".join(plan.notices)


def test_claude_global_prints_the_claude_mcp_add_command(context: MakeContext) -> None:
    plan = find_host("claude-code").link_plan(context(G))
    assert not [e for e in plan.edits if e.file.name == ".claude.json"]
    assert "  claude mcp add --scope user engram -- engram-mcp" in plan.notices
    unplan = find_host("claude").unlink_plan(context(G))
    assert "  claude mcp remove --scope user engram" in unplan.notices


def test_always_load_reaches_only_claude(context: MakeContext) -> None:
    claude = find_host("claude").link_plan(context(W, always_load=True, hooks=False))
    edit = claude.edits[0]
    assert isinstance(edit, SetValue) and isinstance(edit.value, dict)
    assert edit.value["args"] == ["--always-load"]
    printed = find_host("claude").link_plan(context(G, always_load=True, hooks=False)).notices
    assert "  claude mcp add --scope user engram -- engram-mcp --always-load" in printed
    cursor = find_host("cursor").link_plan(context(W, always_load=True))
    assert isinstance(cursor.edits[0], SetValue) and cursor.edits[0].value == {
        "type": "stdio", "command": "engram-mcp", "args": []}  # fmt: skip
    assert any("--always-load is ignored" in n for n in cursor.notices)


def test_always_load_is_dropped_when_an_engram_claude_hook_is_installed(
    sandbox: Sandbox, context: MakeContext
) -> None:
    settings = sandbox.workspace / ".claude/settings.json"
    settings.parent.mkdir()
    hook = {"type": "command", "command": "engram hook claude", "timeout": 10}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))
    plan = find_host("claude").link_plan(context(W, always_load=True))
    assert isinstance(plan.edits[0], SetValue) and isinstance(plan.edits[0].value, dict)
    assert plan.edits[0].value["args"] == []
    assert any("hooks already inject context" in n for n in plan.notices)


def test_force_asks_to_replace_a_different_entry(context: MakeContext) -> None:
    edit = find_host("gemini").link_plan(context(W, force=True)).edits[0]
    assert isinstance(edit, SetValue) and edit.replace


def test_opencode_prefers_jsonc_and_follows_the_servers_table(
    sandbox: Sandbox, context: MakeContext
) -> None:
    (sandbox.workspace / "opencode.json").write_text("{}")
    jsonc = sandbox.workspace / "opencode.jsonc"
    jsonc.write_text(
        '{\n  // v2 layout\n  "mcp": {"servers": {"other": {"type": "local", "command": ["x"]}},},\n}\n'
    )
    edit = find_host("opencode").link_plan(context(W)).edits[0]
    assert edit == SetValue(
        jsonc,
        DocFormat.JSONC,
        ("mcp", "servers", "engram"),
        {"type": "local", "command": ["engram-mcp"]},
    )


def test_antigravity_uses_the_older_config_when_only_it_exists(
    sandbox: Sandbox, context: MakeContext
) -> None:
    older = sandbox.home / ".gemini/antigravity/mcp_config.json"
    older.parent.mkdir(parents=True)
    older.write_text('{"mcpServers": {}}')
    edit = find_host("antigravity").link_plan(context(G)).edits[0]
    assert isinstance(edit, SetValue) and edit.file == older


def test_codex_home_and_xdg_config_home_are_honoured(
    sandbox: Sandbox, context: MakeContext
) -> None:
    ctx = context(G)
    env = {
        **ctx.env,
        "CODEX_HOME": str(sandbox.root / "codex"),
        "XDG_CONFIG_HOME": str(sandbox.root / "xdg"),
    }
    from dataclasses import replace

    ctx = replace(ctx, env=env)
    codex = find_host("codex").link_plan(ctx).edits[0]
    opencode = find_host("opencode").link_plan(ctx).edits[0]
    assert isinstance(codex, SetValue) and codex.file == sandbox.root / "codex/config.toml"
    assert isinstance(opencode, SetValue)
    assert opencode.file == sandbox.root / "xdg/opencode/opencode.jsonc"


def test_unlink_plan_removes_only_where_an_entry_exists(
    sandbox: Sandbox, context: MakeContext
) -> None:
    mcp = sandbox.workspace / ".mcp.json"
    assert find_host("claude").unlink_plan(context(W)).edits == []
    mcp.write_text('{"mcpServers": {"engram": {"command": "engram-mcp"}, "other": {}}}')
    assert find_host("claude").unlink_plan(context(W)).edits == [
        RemoveValue(mcp, DocFormat.JSON, ("mcpServers", "engram"))
    ]
