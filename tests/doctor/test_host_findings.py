"""Doctor finds each host problem planted in a temporary home and workspace."""

from __future__ import annotations

import json
import os
from pathlib import Path

from engram.doctor import host_checks
from engram.doctor.findings import Finding, Severity
from engram.doctor.runner import DoctorContext, run_doctor
from engram.testing import Sandbox

ENGRAM_MCP = {"command": "engram-mcp", "args": []}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def context(sandbox: Sandbox, **env: str) -> DoctorContext:
    return DoctorContext(
        home=sandbox.home, workspace=sandbox.workspace, env={**sandbox.env(), **env}
    )


def findings(sandbox: Sandbox, code: str, **env: str) -> list[Finding]:
    return run_doctor(context(sandbox, **env), host_checks.CHECKS, only=code).findings


def severities(found: list[Finding]) -> list[Severity]:
    return [f.severity for f in found]


def test_gemini_trust_true_is_a_warning(sandbox: Sandbox) -> None:
    settings = write(
        sandbox.home / ".gemini" / "settings.json",
        '{\n  // mine\n  "mcpServers": {"engram": {"command": "engram-mcp", "trust": true}}\n}\n',
    )
    found = findings(sandbox, "host.gemini_trust")
    assert severities(found) == [Severity.WARN]
    assert found[0].file == str(settings)
    assert "trust" in found[0].remedy


def test_gemini_without_trust_passes(sandbox: Sandbox) -> None:
    write(
        sandbox.home / ".gemini" / "settings.json",
        json.dumps({"mcpServers": {"engram": ENGRAM_MCP}}),
    )
    assert severities(findings(sandbox, "host.gemini_trust")) == [Severity.PASS]


def test_untrusted_gemini_folder_is_reported(sandbox: Sandbox) -> None:
    write(
        sandbox.workspace / ".gemini" / "settings.json",
        json.dumps({"mcpServers": {"engram": ENGRAM_MCP}}),
    )
    assert severities(findings(sandbox, "host.gemini_folder_untrusted")) == [Severity.WARN]
    write(
        sandbox.home / ".gemini" / "trustedFolders.json",
        json.dumps({str(sandbox.workspace): "TRUST_FOLDER"}),
    )
    assert severities(findings(sandbox, "host.gemini_folder_untrusted")) == [Severity.PASS]


def test_claude_project_server_pending_approval(sandbox: Sandbox) -> None:
    write(sandbox.workspace / ".mcp.json", json.dumps({"mcpServers": {"engram": ENGRAM_MCP}}))
    assert severities(findings(sandbox, "host.claude_pending_approval")) == [Severity.WARN]
    write(
        sandbox.workspace / ".claude" / "settings.local.json",
        json.dumps({"enabledMcpjsonServers": ["engram"]}),
    )
    assert severities(findings(sandbox, "host.claude_pending_approval")) == [Severity.PASS]


def test_strict_json_file_with_comments_fails(sandbox: Sandbox) -> None:
    mcp = write(
        sandbox.workspace / ".cursor" / "mcp.json",
        '{\n  // added by hand\n  "mcpServers": {"engram": {"command": "engram-mcp"},},\n}\n',
    )
    found = findings(sandbox, "host.strict_json")
    assert severities(found) == [Severity.FAIL]
    assert found[0].file == str(mcp)


def codex_hooks(sandbox: Sandbox) -> Path:
    group = {"matcher": "startup", "hooks": [{"type": "command", "command": "engram hook codex"}]}
    return write(
        sandbox.home / ".codex" / "hooks.json", json.dumps({"hooks": {"SessionStart": [group]}})
    )


def test_codex_hook_pending_trust(sandbox: Sandbox) -> None:
    hooks = codex_hooks(sandbox)
    found = findings(sandbox, "host.codex_hook_untrusted")
    assert severities(found) == [Severity.WARN]
    key = f"{hooks}:session_start:0:0"
    write(
        sandbox.home / ".codex" / "config.toml",
        f'[hooks.state."{key}"]\ntrusted_hash = "sha256:00"\n',
    )
    assert severities(findings(sandbox, "host.codex_hook_untrusted")) == [Severity.PASS]


def test_hook_pointing_at_missing_command_fails(sandbox: Sandbox, tmp_path: Path) -> None:
    codex_hooks(sandbox)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    found = findings(sandbox, "host.hook_command", PATH=str(empty), ENGRAM_MINIMAL_PATH=str(empty))
    assert severities(found) == [Severity.FAIL]
    assert "engram" in found[0].message


def test_hook_command_only_on_shell_path_warns(sandbox: Sandbox, tmp_path: Path) -> None:
    codex_hooks(sandbox)
    shell_bin = tmp_path / "shell-bin"
    shell_bin.mkdir()
    program = write(shell_bin / "engram", "#!/bin/sh\nexit 0\n")
    os.chmod(program, 0o755)
    minimal = tmp_path / "minimal"
    minimal.mkdir()
    found = findings(
        sandbox, "host.shell_path_only", PATH=str(shell_bin), ENGRAM_MINIMAL_PATH=str(minimal)
    )
    assert severities(found) == [Severity.WARN]  # one code for every command and hook
    assert str(shell_bin) in found[0].message
    found = findings(
        sandbox, "host.hook_command", PATH=str(shell_bin), ENGRAM_MINIMAL_PATH=str(shell_bin)
    )
    assert severities(found) == [Severity.PASS]


def test_host_filter_limits_checks(sandbox: Sandbox) -> None:
    write(
        sandbox.home / ".gemini" / "settings.json",
        json.dumps({"mcpServers": {"engram": {**ENGRAM_MCP, "trust": True}}}),
    )
    ctx = DoctorContext(sandbox.home, sandbox.workspace, sandbox.env(), hosts=("claude",))
    assert run_doctor(ctx, host_checks.CHECKS, only="host.gemini_trust").findings == []


def test_a_crashing_check_is_one_failure_not_a_crash(sandbox: Sandbox) -> None:
    def broken(ctx: DoctorContext) -> list[Finding]:
        raise RuntimeError("boom")

    report = run_doctor(context(sandbox), [broken])
    assert [f.code for f in report.findings] == ["doctor.check_crashed"]
    assert report.failed
