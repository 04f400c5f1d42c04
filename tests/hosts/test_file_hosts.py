"""The hosts whose CLIs cannot run here (or need an account): what each asks to be written per
scope, and what doctor says about it — missing, as link writes it, changed, unreadable."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.doctor.findings import Severity
from engram.edit.engine import apply
from engram.edit.ledger import Ledger
from engram.edit.plan import AddToList, DocFormat, OwnedFile, Scope, SetValue
from engram.hosts import HostContext
from engram.hosts.registry import find_host
from engram.testing import Sandbox
from tests.hosts.conftest import MakeContext

W, G = Scope.WORKSPACE, Scope.GLOBAL
STDIO = {"type": "stdio", "command": "engram-mcp", "args": []}
PLAIN = {"command": "engram-mcp", "args": []}
DISABLED_FALSE = {**PLAIN, "disabled": False}
GOOSE = {
    "enabled": True,
    "type": "stdio",
    "name": "engram",
    "description": "Engram: persistent memory for this project",
    "cmd": "engram-mcp",
    "args": [],
    "envs": {},
    "timeout": 300,
}
KILO = {"type": "local", "command": ["engram-mcp"], "enabled": True}

# host, scope, the file (~/ = home; $C/ = ~/.config on Linux), format, keys, entry
EXPECTED = [
    ("vscode", W, ".vscode/mcp.json", DocFormat.JSONC, ("servers", "engram"), STDIO),
    ("vscode", G, "$C/Code/User/mcp.json", DocFormat.JSONC, ("servers", "engram"), STDIO),
    ("cline", G, "~/.cline/data/settings/cline_mcp_settings.json", DocFormat.JSON,
     ("mcpServers", "engram"), DISABLED_FALSE),
    ("kilo", W, ".kilo/kilo.jsonc", DocFormat.JSONC, ("mcp", "engram"), KILO),
    ("kilo", G, "$C/kilo/kilo.jsonc", DocFormat.JSONC, ("mcp", "engram"), KILO),
    ("crush", W, ".crush.json", DocFormat.JSON, ("mcp", "engram"), STDIO),
    ("crush", G, "$C/crush/crush.json", DocFormat.JSON, ("mcp", "engram"), STDIO),
    ("goose", G, "$C/goose/config.yaml", DocFormat.YAML, ("extensions", "engram"), GOOSE),
    ("kiro", W, ".kiro/settings/mcp.json", DocFormat.JSON, ("mcpServers", "engram"),
     DISABLED_FALSE),
    ("kiro", G, "~/.kiro/settings/mcp.json", DocFormat.JSON, ("mcpServers", "engram"),
     DISABLED_FALSE),
    ("zed", W, ".zed/settings.json", DocFormat.JSONC, ("context_servers", "engram"),
     {**PLAIN, "env": {}}),
    ("zed", G, "$C/zed/settings.json", DocFormat.JSONC, ("context_servers", "engram"),
     {**PLAIN, "env": {}}),
    ("claude-desktop", G, "$C/Claude/claude_desktop_config.json", DocFormat.JSON,
     ("mcpServers", "engram"), PLAIN),
]  # fmt: skip


def where(sandbox: Sandbox, rel: str) -> Path:
    if rel.startswith("~/"):
        return sandbox.home / rel[2:]
    if rel.startswith("$C/"):
        return sandbox.home / ".config" / rel[3:]
    return sandbox.workspace / rel


@pytest.mark.parametrize(("host", "scope", "file", "fmt", "keys", "entry"), EXPECTED)
def test_link_plan_sets_the_hosts_own_entry(
    sandbox: Sandbox, context: MakeContext, host: str, scope: Scope, file: str,
    fmt: DocFormat, keys: tuple[str, ...], entry: dict[str, object],
) -> None:  # fmt: skip
    plan = find_host(host).link_plan(context(scope))
    assert plan.edits[0] == SetValue(where(sandbox, file), fmt, keys, entry)
    assert plan.notices == []


@pytest.mark.parametrize(
    ("host", "word"), [("cline", "--global"), ("goose", "--global"), ("claude-desktop", "--global")]
)
def test_a_user_level_only_host_says_so_for_a_workspace(
    context: MakeContext, host: str, word: str
) -> None:
    plan = find_host(host).link_plan(context(W))
    assert not [e for e in plan.edits if isinstance(e, SetValue)]
    assert word in " ".join(plan.notices)
    assert find_host(host).doctor(context(W))[0].severity is Severity.SKIP


def test_continue_workspace_gets_its_own_block_file(sandbox: Sandbox, context: MakeContext) -> None:
    plan = find_host("continue").link_plan(context(W))
    block = plan.edits[0]
    assert isinstance(block, OwnedFile)
    assert block.file == sandbox.workspace / ".continue/mcpServers/engram.yaml"
    assert "schema: v1\n" in block.content
    assert "  - name: engram\n    command: engram-mcp\n    args: []\n" in block.content
    rule = next(e for e in plan.edits if isinstance(e, OwnedFile) and e.file.name == "engram.md")
    assert rule.content.startswith("---\nname: Engram memory protocol\n")
    assert "alwaysApply: true" in rule.content


def test_continue_global_appends_to_config_yaml(sandbox: Sandbox, context: MakeContext) -> None:
    config = sandbox.home / ".continue/config.yaml"
    fresh = find_host("continue").link_plan(context(G)).edits
    assert [e.path for e in fresh[:3] if isinstance(e, SetValue)] == [
        ("name",),
        ("version",),
        ("schema",),
    ]
    config.parent.mkdir()
    config.write_text("name: Mine\nversion: 1.0.0\nschema: v1\n")
    edits = find_host("continue").link_plan(context(G)).edits
    assert edits[0] == AddToList(
        config, DocFormat.YAML, ("mcpServers",), {"name": "engram", **PLAIN}, key="name"
    )


@pytest.mark.parametrize(("host", "scope"), [("continue", W), ("continue", G), ("vibe", G)])
def test_mcp_only_writes_no_rule_or_skill(
    sandbox: Sandbox, context: MakeContext, host: str, scope: Scope
) -> None:
    """``engram setup <agent> --mcp-only``: the registration alone, for the hosts with their
    own link plan too."""
    plan = find_host(host).link_plan(context(scope, extras=False))
    assert plan.edits
    assert not [e for e in plan.edits if "rules" in e.file.parts or "skills" in e.file.parts]


def test_continue_on_the_legacy_json_config_writes_nothing(
    sandbox: Sandbox, context: MakeContext
) -> None:
    legacy = sandbox.home / ".continue/config.json"
    legacy.parent.mkdir()
    legacy.write_text('{"models": []}')
    plan = find_host("continue").link_plan(context(G))
    assert plan.edits == []
    assert "Migrating Config to YAML" in plan.notices[0]
    (finding,) = find_host("continue").doctor(context(G))
    assert finding.severity is Severity.WARN


@pytest.mark.parametrize(
    ("existing", "chosen"),
    [((), "AGENTS.md"), ((".rules",), ".rules"), (("CLAUDE.md", "AGENT.md"), "AGENT.md")],
)
def test_zed_instructions_go_where_zed_reads_them(
    sandbox: Sandbox, context: MakeContext, existing: tuple[str, ...], chosen: str
) -> None:
    for rel in existing:
        (sandbox.workspace / rel).write_text("be nice\n")
    plan = find_host("zed").link_plan(context(W))
    blocks = [e.file for e in plan.edits if type(e).__name__ == "ManagedBlock"]
    assert blocks == [sandbox.workspace / chosen]


def test_kiro_steering_is_always_included(sandbox: Sandbox, context: MakeContext) -> None:
    plan = find_host("kiro").link_plan(context(W))
    steering = next(
        e for e in plan.edits if isinstance(e, OwnedFile) and e.file.parent.name == "steering"
    )
    assert steering.content.startswith("---\ninclusion: always\n---\n")


DOCTOR = [
    ("vscode", W), ("vscode", G), ("cline", G), ("kilo", W), ("kilo", G), ("crush", W),
    ("crush", G), ("goose", G), ("kiro", W), ("kiro", G), ("zed", W), ("zed", G),
    ("claude-desktop", G), ("continue", W), ("continue", G),
]  # fmt: skip


@pytest.mark.parametrize(("host", "scope"), DOCTOR)
def test_doctor_follows_the_registration(
    sandbox: Sandbox, context: MakeContext, host: str, scope: Scope
) -> None:
    name = find_host(host).name
    code = f"host.{name}.registered"
    ctx = context(scope)
    (missing,) = [f for f in find_host(host).doctor(ctx) if f.code == code]
    assert missing.severity is Severity.WARN
    assert missing.remedy == f"engram link {name}{' --global' if scope is G else ''}"
    apply([find_host(host).link_plan(ctx)], Ledger.at(sandbox.data_dir))
    (linked,) = [f for f in find_host(host).doctor(ctx) if f.code == code]
    assert linked.severity is Severity.PASS, linked.message
    config = Path(linked.file or "")
    text = config.read_text()
    config.write_text(text.replace("engram-mcp", "/old/engram-mcp"))
    (changed,) = [f for f in find_host(host).doctor(ctx) if f.code == code]
    assert changed.severity is Severity.WARN and changed.remedy.endswith("--force")
    config.write_text(text[: len(text) // 2] + "\n\t{[")
    (broken,) = [f for f in find_host(host).doctor(ctx) if f.code == code]
    assert broken.severity is Severity.FAIL and broken.file == str(config)


PRESENCE = [
    ("vscode", ".config/Code"),
    ("cline", ".cline"),
    ("kilo", ".config/kilo"),
    ("crush", ".config/crush"),
    ("continue", ".continue"),
    ("goose", ".config/goose"),
    ("kiro", ".kiro"),
    ("zed", ".config/zed"),
    ("claude-desktop", ".config/Claude"),
]


@pytest.mark.parametrize(("host", "folder"), PRESENCE)
def test_link_all_finds_the_host_by_its_user_folder(
    sandbox: Sandbox, context: MakeContext, host: str, folder: str
) -> None:
    from engram.hosts.presence import presence

    ctx = context(G)
    empty_path = HostContext(**{**ctx.__dict__, "env": {**ctx.env, "PATH": str(sandbox.root)}})
    missing = presence(find_host(host), empty_path)
    assert not missing.found and folder in missing.reason
    (sandbox.home / folder).mkdir(parents=True)
    found = presence(find_host(host), empty_path)
    assert found.found and folder in found.reason


@pytest.mark.parametrize(
    ("module", "cls", "rel"),
    [
        ("goose", "Goose", "Block/goose/config/config.yaml"),
        ("zed", "Zed", "Zed/settings.json"),
        ("vscode", "VsCode", "Code/User/mcp.json"),
        ("claude_desktop", "ClaudeDesktop", "Claude/claude_desktop_config.json"),
    ],
)
def test_on_windows_the_user_config_is_under_appdata(
    sandbox: Sandbox, context: MakeContext, monkeypatch: pytest.MonkeyPatch,
    module: str, cls: str, rel: str,
) -> None:  # fmt: skip
    import importlib
    import sys

    appdata = sandbox.home / "AppData/Roaming"
    monkeypatch.setattr(sys, "platform", "win32")
    windows = importlib.import_module(f"engram.hosts.{module}")
    try:
        host = getattr(importlib.reload(windows), cls)()
        ctx = context(G)
        ctx = HostContext(**{**ctx.__dict__, "env": {**ctx.env, "APPDATA": str(appdata)}})
        assert host.config_file(ctx) == appdata / rel
    finally:
        monkeypatch.undo()
        importlib.reload(windows)
