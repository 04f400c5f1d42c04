"""What a user sees from `engram link` / `unlink`: dry runs, refusals, errors, messages."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from engram.testing import Sandbox
from tests.cli.test_link import engram, server_on_path, snapshot

OTHER = (
    '{\n  "mcpServers": {\n    "engram": {"command": "/opt/old/engram-mcp"},\n    "x": {}\n  }\n}\n'
)


def test_dry_run_prints_a_diff_and_writes_nothing(
    sandbox: Sandbox, every_host_used: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    (sandbox.workspace / ".mcp.json").write_text('{"mcpServers": {}}\n')
    before = snapshot(sandbox.root)
    code, out = engram(capsys, "link", "all", "--dry-run")
    assert code == 0, out
    assert "+++ " in out and '+    "engram": {' in out
    assert "dry run: nothing was written" in out
    assert snapshot(sandbox.root) == before


def test_output_lists_every_file_and_what_changed(
    sandbox: Sandbox, every_host_used: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = engram(capsys, "link", "all")
    assert code == 0, out
    for line in (
        "created   .mcp.json (mcpServers.engram)",
        "created   .gemini/settings.json (mcpServers.engram, hooks.SessionStart,",
        "created   .cursor/mcp.json (mcpServers.engram)",
        "created   opencode.json (mcp.engram)",
        "created   .agents/mcp_config.json (mcpServers.engram)",
    ):
        assert line in out
    assert "Windsurf workspace MCP is skipped" in out
    assert "engram link codex --global" in out
    code, out = engram(capsys, "unlink", "all")
    assert code == 0
    for name in (".mcp.json", ".gemini/settings.json", ".cursor/mcp.json", "opencode.json"):
        assert f"removed   {name}" in out


def test_a_different_engram_entry_is_left_alone_without_force(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    mcp = sandbox.workspace / ".mcp.json"
    mcp.write_text(OTHER)
    code, out = engram(capsys, "link", "claude")
    assert code == 1
    assert "--force" in out and "differs" in out
    assert mcp.read_text() == OTHER

    code, out = engram(capsys, "link", "claude", "--force")
    assert code == 0, out
    assert json.loads(mcp.read_text())["mcpServers"]["engram"]["command"] == "engram-mcp"
    code, out = engram(capsys, "unlink", "claude")
    assert code == 0, out
    assert mcp.read_text() == OTHER  # the user's own entry comes back


def test_an_entry_engram_did_not_write_survives_unlink(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    mcp = sandbox.workspace / ".mcp.json"
    mcp.write_text(OTHER)
    code, out = engram(capsys, "unlink", "claude")
    assert code == 0
    assert "not written by Engram; left alone" in out
    assert mcp.read_text() == OTHER


def test_unknown_host_is_one_line_listing_the_hosts(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = engram(capsys, "link", "emacs")
    assert code == 1
    assert out.count("\n") == 1
    assert "unknown host 'emacs'" in out
    for name in ("claude", "codex", "gemini", "cursor", "opencode", "windsurf", "antigravity"):
        assert name in out


def test_aliases_name_the_same_host(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = engram(capsys, "link", "gemini-cli")
    assert code == 0 and (sandbox.workspace / ".gemini/settings.json").is_file()
    code, _ = engram(capsys, "link", "cascade", "--global")
    assert code == 0 and (sandbox.home / ".codeium/windsurf/mcp_config.json").is_file()


def test_a_corrupt_config_stops_everything_before_a_byte_is_written(
    sandbox: Sandbox, every_host_used: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = sandbox.workspace / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  "mcpServers": {\n    "x": {"command": "x"\n  }\n')
    before = snapshot(sandbox.root)
    code, out = engram(capsys, "link", "all")
    assert code == 1
    assert out.startswith("error: ") and out.count("\n") == 1
    assert "settings.json:" in out  # names the file, line and column
    assert snapshot(sandbox.root) == before


def test_claude_global_prints_the_command_to_run(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = engram(capsys, "link", "claude", "--global", "--always-load", "--no-hooks")
    assert code == 0
    assert "claude mcp add --scope user engram -- engram-mcp --always-load" in out
    assert not (sandbox.home / ".claude.json").exists()


def test_codex_workspace_is_a_notice_and_nothing_is_written(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(sandbox.root)
    code, out = engram(capsys, "link", "codex")
    assert code == 0
    assert "engram link codex --global" in out
    assert snapshot(sandbox.root) == before


def test_without_engram_mcp_on_path_the_absolute_script_is_registered(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    code, out = engram(capsys, "link", "cursor")
    assert code == 0, out
    command = json.loads((sandbox.workspace / ".cursor/mcp.json").read_text())
    script = Path(sys.executable).parent / "engram-mcp"
    assert command["mcpServers"]["engram"]["command"] == str(script)


__all__ = ["server_on_path"]


def test_linking_again_re_pins_an_entry_engram_wrote(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = os.environ["PATH"]
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert engram(capsys, "link", "gemini", "--global")[0] == 0
    settings = sandbox.home / ".gemini/settings.json"
    assert json.loads(settings.read_text())["mcpServers"]["engram"]["command"].startswith("/")
    monkeypatch.setenv("PATH", path)  # engram-mcp is on PATH now: the bare name is better
    code, out = engram(capsys, "link", "gemini", "--global")
    assert code == 0, out
    assert json.loads(settings.read_text())["mcpServers"]["engram"]["command"] == "engram-mcp"
    assert engram(capsys, "unlink", "gemini", "--global")[0] == 0
    assert not settings.exists()


def test_a_second_link_says_already_linked_once_per_file(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    assert engram(capsys, "link", "cursor")[0] == 0
    code, out = engram(capsys, "link", "cursor")
    assert code == 0, out
    hooks = next(line for line in out.splitlines() if ".cursor/hooks.json" in line)
    assert hooks.startswith("  unchanged") and hooks.count("already linked") == 1, hooks


def test_link_all_links_the_hosts_found_here_and_says_why_it_skipped_the_rest(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = sandbox.root / "bin"
    bin_dir.mkdir()
    droid = bin_dir / "droid"  # a program named droid on PATH: Droid is installed
    droid.write_text("#!/bin/sh\nexit 0\n")
    droid.chmod(0o755)
    (sandbox.home / ".qwen").mkdir()  # Qwen Code was used here
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    code, out = engram(capsys, "link", "all", "--global")
    assert code == 0, out
    assert "Factory Droid (global):" in out and "Qwen Code (global):" in out
    assert "skipped   Cursor: not found (no `cursor` on PATH and no `cursor-agent` on PATH" in out
    assert "Claude Code (global):" not in out
    assert not (sandbox.home / ".cursor").exists()
    assert (sandbox.home / ".factory/mcp.json").is_file()
