"""What `Host.doctor` tells a user about the registration: missing, differing, broken, fine."""

from __future__ import annotations

import json

from engram.doctor.findings import Severity
from engram.edit.plan import Scope
from engram.hosts.registry import find_host
from engram.testing import Sandbox
from tests.hosts.conftest import MakeContext


def severities(findings: list) -> list[tuple[str, Severity]]:  # type: ignore[type-arg]
    return [(f.code, f.severity) for f in findings]


def test_missing_registration_is_a_warning_with_the_link_command(context: MakeContext) -> None:
    (finding,) = find_host("cursor").doctor(context(Scope.GLOBAL))
    assert (finding.code, finding.severity) == ("host.cursor.registered", Severity.WARN)
    assert finding.remedy == "engram link cursor --global"


def test_registered_entry_passes_and_a_changed_one_warns(
    sandbox: Sandbox, context: MakeContext
) -> None:
    mcp = sandbox.workspace / ".mcp.json"
    entry = {"type": "stdio", "command": "engram-mcp", "args": []}
    mcp.write_text(json.dumps({"mcpServers": {"engram": entry}}))
    assert severities(find_host("claude").doctor(context())) == [
        ("host.claude.registered", Severity.PASS)
    ]
    mcp.write_text(json.dumps({"mcpServers": {"engram": {**entry, "command": "/old/engram-mcp"}}}))
    (finding,) = find_host("claude").doctor(context())
    assert finding.severity is Severity.WARN and finding.remedy.endswith("--force")


def test_unparsable_config_fails_naming_the_file(sandbox: Sandbox, context: MakeContext) -> None:
    config = sandbox.home / ".codex/config.toml"
    config.parent.mkdir()
    config.write_text("[mcp_servers.engram\n")
    (finding,) = find_host("codex").doctor(context(Scope.GLOBAL))
    assert finding.severity is Severity.FAIL and finding.file == str(config)


def test_gemini_trust_true_is_reported(sandbox: Sandbox, context: MakeContext) -> None:
    settings = sandbox.workspace / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{"mcpServers": {"engram": {"command": "engram-mcp", "args": [], "trust": true}}}'
    )
    codes = [f.code for f in find_host("gemini").doctor(context())]
    assert "host.gemini_trust" in codes


def test_skipped_scope_is_a_skip_and_claude_global_reads_claude_json(
    sandbox: Sandbox, context: MakeContext
) -> None:
    assert severities(find_host("windsurf").doctor(context())) == [
        ("host.windsurf.registered", Severity.SKIP)
    ]
    (sandbox.home / ".claude.json").write_text(
        '{"mcpServers": {"engram": {"command": "engram-mcp"}}}'
    )
    assert find_host("claude").doctor(context(Scope.GLOBAL))[0].severity is Severity.PASS


def test_every_antigravity_config_found_is_listed(sandbox: Sandbox, context: MakeContext) -> None:
    for rel in (".gemini/config/mcp_config.json", ".gemini/antigravity/mcp_config.json"):
        (sandbox.home / rel).parent.mkdir(parents=True)
        (sandbox.home / rel).write_text('{"mcpServers": {}}')
    findings = find_host("antigravity").doctor(context(Scope.GLOBAL))
    (several,) = [f for f in findings if f.code == "host.antigravity.configs"]
    assert several.severity is Severity.WARN
    assert (
        "config/mcp_config.json" in several.message
        and "antigravity/mcp_config.json" in several.message
    )
