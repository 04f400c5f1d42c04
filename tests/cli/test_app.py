"""The root command answers without a store and exits with the documented codes."""

from __future__ import annotations

import subprocess
import sys

from engram import __version__
from engram.testing import Sandbox


def run_engram(sandbox: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engram.cli.app", *args],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )


def test_version_prints_the_installed_version(sandbox: Sandbox) -> None:
    result = run_engram(sandbox, "version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"engram {__version__}"


def test_help_answers_without_creating_the_data_dir(sandbox: Sandbox) -> None:
    result = run_engram(sandbox, "--help")
    assert result.returncode == 0
    assert "version" in result.stdout
    assert not sandbox.data_dir.exists()


def test_unknown_command_is_a_usage_error(sandbox: Sandbox) -> None:
    result = run_engram(sandbox, "no-such-command")
    assert result.returncode == 2
    assert "no-such-command" in result.stderr
