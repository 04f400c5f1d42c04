"""`engram link` explains itself: hook commands come from the same resolution as the MCP entry,
files the host itself cannot parse are refused (doctor says the same), and the output ends with
the host's next step and what to commit."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from engram.testing import Sandbox
from tests.cli.test_link import engram, server_on_path, snapshot

BIN = Path(sys.executable).parent


def hook_commands(value: object) -> list[str]:
    if isinstance(value, dict):
        return [c for k, v in value.items() for c in ([v] if k == "command" else hook_commands(v))]
    if isinstance(value, list):
        return [c for v in value for c in hook_commands(v)]
    return []


def without_engram_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")


def test_hooks_use_the_absolute_engram_beside_the_absolute_server(
    sandbox: Sandbox,
    every_host_used: Sandbox,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_engram_on_path(monkeypatch)
    code, out = engram(capsys, "link", "all")
    assert code == 0, out
    ws = sandbox.workspace
    mcp = json.loads((ws / ".mcp.json").read_text())["mcpServers"]["engram"]["command"]
    assert mcp == str(BIN / "engram-mcp")
    expected = {f"{shlex.quote(str(BIN / 'engram'))} hook {h}" for h in ("claude", "gemini")}
    found = set()
    for rel in (".claude/settings.json", ".gemini/settings.json"):
        found |= set(hook_commands(json.loads((ws / rel).read_text())["hooks"]))
    assert found == expected
    assert set(hook_commands(json.loads((ws / ".cursor/hooks.json").read_text()))) == {
        f"{shlex.quote(str(BIN / 'engram'))} hook cursor"
    }
    plugin = (ws / ".opencode/plugins/engram.js").read_text()
    assert f"const ENGRAM = {json.dumps([str(BIN / 'engram')])};" in plugin
    # The hook command runs under a host's bare PATH, where a bare `engram` would not.
    payload = json.dumps({"hook_event_name": "SessionStart", "session_id": "s", "cwd": str(ws)})
    env = {**sandbox.env(), "PATH": "/usr/bin:/bin"}
    for command in expected:
        done = subprocess.run(
            ["sh", "-c", command], input=payload, capture_output=True, text=True, env=env, cwd=ws
        )
        assert done.returncode == 0 and done.stderr == "", (command, done.stderr)


def test_the_doctor_checks_the_hook_command_it_wrote(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    without_engram_on_path(monkeypatch)
    assert engram(capsys, "link", "claude")[0] == 0
    code, out = engram(capsys, "doctor", "--check", "host.hook_command")
    assert "ok   host.hook_command" in out and str(BIN / "engram") in out, out
    settings = sandbox.workspace / ".claude/settings.json"
    settings.write_text(settings.read_text().replace(str(BIN / "engram"), "/gone/bin/engram"))
    code, out = engram(capsys, "doctor", "--check", "host.hook_command")
    assert code == 1 and "FAIL" in out and "/gone/bin/engram" in out, out


def test_launcher_hooks_carry_no_release_pin(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from engram.hosts.context import ServerCommand

    uvx = ServerCommand(
        "/opt/bin/uvx", ("--from", "engram-keeper==0.1.0", "engram-mcp"), "0.1.0", "uvx"
    )
    assert uvx.hook_command("codex") == "/opt/bin/uvx --from engram-keeper engram hook codex"
    spaced = ServerCommand("/My Tools/bin/engram-mcp", (), "0.1.0", "absolute")
    assert spaced.hook_command("claude") == "'/My Tools/bin/engram' hook claude"
    assert ServerCommand("engram-mcp").hook_command("gemini") == "engram hook gemini"


def test_gemini_settings_with_a_trailing_comma_are_refused_untouched(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = sandbox.workspace / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  // my theme\n  "theme": "dark",\n}\n')
    before = snapshot(sandbox.root)
    code, out = engram(capsys, "link", "gemini")
    assert code == 1
    assert "refused   .gemini/settings.json: Gemini CLI cannot read it (line 3" in out
    assert "a trailing comma" in out and "comments but no trailing commas" in out
    assert "nothing was written for this host" in out
    assert snapshot(sandbox.root) == before
    code, out = engram(capsys, "doctor", "--check", "host.strict_json")
    assert code == 1 and "gemini cannot read settings.json (line 3" in out, out


def test_gemini_comments_alone_are_fine(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = sandbox.workspace / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  // my theme\n  "theme": "dark"\n}\n')
    code, out = engram(capsys, "link", "gemini")
    assert code == 0, out
    assert "// my theme" in settings.read_text()


def test_claude_mcp_json_with_a_comment_is_refused_other_hosts_still_link(
    sandbox: Sandbox, every_host_used: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    mcp = sandbox.workspace / ".mcp.json"
    mcp.write_text('{\n  /* servers */\n  "mcpServers": {}\n}\n')
    code, out = engram(capsys, "link", "all")
    assert code == 1
    assert "refused   .mcp.json: Claude Code cannot read it (line 2, column 3: a comment" in out
    assert mcp.read_text() == '{\n  /* servers */\n  "mcpServers": {}\n}\n'
    assert not (sandbox.workspace / "CLAUDE.md").exists()  # nothing at all for that host
    assert (sandbox.workspace / ".cursor/mcp.json").is_file()


def test_link_prints_the_next_step_and_what_to_commit(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = engram(capsys, "link", "claude")
    assert code == 0 and "next:     start `claude`" in out
    assert "commit:" not in out  # outside a git repository there is nothing to commit to
    engram(capsys, "unlink", "claude")
    subprocess.run(["git", "init", "-q"], cwd=sandbox.workspace, check=True)
    code, out = engram(capsys, "link", "claude")
    assert code == 0, out
    assert f"next:     start `claude` in {sandbox.workspace}, trust the folder and approve" in out
    assert "commit:   .mcp.json, .claude/settings.json, CLAUDE.md," in out
    code, out = engram(capsys, "link", "gemini")
    assert "next:     trust the folder: start `gemini` in" in out
    code, out = engram(capsys, "link", "codex", "--global")
    assert "next:     start `codex` and trust the engram hooks" in out
    assert "commit:" not in out  # nothing in the repo


def test_next_steps_follow_what_link_wrote_and_where(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = engram(capsys, "link", "codex", "--global", "--no-hooks")
    assert code == 0, out
    assert "trust the engram hooks" not in out and "nothing to trust" in out
    code, out = engram(capsys, "link", "gemini", "--global")
    assert "next:     trust each folder you work in" in out
    assert "in any folder" not in out


def test_machine_specific_files_are_not_offered_for_commit(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    without_engram_on_path(monkeypatch)
    subprocess.run(["git", "init", "-q"], cwd=sandbox.workspace, check=True)
    code, out = engram(capsys, "link", "claude")
    assert code == 0, out
    assert "commit:   CLAUDE.md, .claude/skills/memory-protocol/SKILL.md" in out
    assert f"local:    .mcp.json, .claude/settings.json name {BIN / 'engram'}" in out


def test_a_dry_run_prints_no_next_step(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = engram(capsys, "link", "claude", "--dry-run")
    assert code == 0 and "next:" not in out


def test_always_load_is_dropped_when_a_user_level_hook_exists(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    assert engram(capsys, "link", "claude", "--global")[0] == 0
    code, out = engram(capsys, "link", "claude", "--always-load", "--no-hooks")
    assert code == 0, out
    args = json.loads((sandbox.workspace / ".mcp.json").read_text())["mcpServers"]["engram"]["args"]
    assert "--always-load" not in args
    assert "hooks already inject context" in out


def test_always_load_is_added_when_no_hook_exists_in_either_scope(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = engram(capsys, "link", "claude", "--always-load", "--no-hooks")
    assert code == 0, out
    args = json.loads((sandbox.workspace / ".mcp.json").read_text())["mcpServers"]["engram"]["args"]
    assert args == ["--always-load"]


__all__ = ["server_on_path"]
