"""The Claude Code plugin is valid for Claude Code itself and ships the same skill and hooks."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from engram.assets import asset_path
from engram.hooks import render
from engram.testing import Sandbox

PLUGIN = asset_path("plugin", "claude")
NPM_BIN = Path(os.environ.get("ENGRAM_TEST_CACHE", Path.home() / ".cache" / "engram-test"))
CLAUDE = NPM_BIN / "npm" / "node_modules" / ".bin" / "claude"


def test_plugin_skill_is_the_shipped_skill() -> None:
    shipped = render.skill_files()["memory-protocol/SKILL.md"]
    assert (PLUGIN / "skills" / "memory-protocol" / "SKILL.md").read_text() == shipped


def test_plugin_hooks_are_the_ones_link_installs() -> None:
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert hooks == {event: [group] for event, group in render.hook_groups("claude").items()}


@pytest.mark.e2e
def test_claude_code_validates_the_plugin(sandbox: Sandbox) -> None:
    assert CLAUDE.exists(), "run scripts/install-host-clis"
    result = subprocess.run(
        [str(CLAUDE), "plugin", "validate", "--strict", str(PLUGIN)],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Validation passed" in result.stdout


def test_the_engram_slash_command_maps_force_to_the_cli_write_path() -> None:
    command = (PLUGIN / "commands" / "engram.md").read_text()
    assert "engram save-session --force" in command
    assert "engram save-session --query-level N --force" in command
    assert "`/engram ss -f`" in command
