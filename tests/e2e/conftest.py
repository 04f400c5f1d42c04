"""The real host CLIs from the npm registry, run against a sandboxed home and workspace.

``scripts/install-host-clis`` installs them (pinned) into
``${ENGRAM_TEST_CACHE:-$HOME/.cache/engram-test}/npm``; ``scripts/test`` runs it first.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from engram.testing import Sandbox

# Read once at import, before any sandbox points HOME elsewhere.
NPM_BIN = (
    Path(os.environ.get("ENGRAM_TEST_CACHE") or Path.home() / ".cache/engram-test")
    / "npm/node_modules/.bin"
)
VENV_BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Hosts:
    """Runs host CLIs and ``engram`` in a sandbox, with ``engram-mcp`` resolvable on PATH."""

    sandbox: Sandbox

    def env(self) -> dict[str, str]:
        path = os.pathsep.join([str(VENV_BIN), str(NPM_BIN), "/usr/local/bin", "/usr/bin", "/bin"])
        # PYTHONPATH pins this checkout, so `engram` and `engram-mcp` run the code under test.
        return self.sandbox.env(PATH=path, PYTHONPATH=str(REPO), NO_COLOR="1", CI="1")

    def run(self, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Run a command in the workspace; output with ANSI colours stripped."""
        done = subprocess.run(
            list(argv),
            capture_output=True,
            text=True,
            env=self.env(),
            cwd=self.sandbox.workspace,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        done.stdout, done.stderr = ANSI.sub("", done.stdout), ANSI.sub("", done.stderr)
        return done

    def host(self, name: str, *args: str) -> subprocess.CompletedProcess[str]:
        """Run one of the npm host CLIs (claude, codex, gemini, opencode)."""
        program = NPM_BIN / name
        if not program.exists():
            pytest.fail(f"{program} is missing: run scripts/install-host-clis (needs npm)")
        return self.run(str(program), *args)

    def engram(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run the installed ``engram`` CLI; fail the test when it fails."""
        done = self.run(str(VENV_BIN / "engram"), *args)
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    def trust_workspace(self) -> None:
        """What a user does once per project: trust it in Claude Code and Gemini CLI, and
        approve the project's engram server in Claude Code."""
        ws = str(self.sandbox.workspace)
        write_json(
            self.sandbox.home / ".claude.json", {"projects": {ws: {"hasTrustDialogAccepted": True}}}
        )
        write_json(
            self.sandbox.workspace / ".claude/settings.local.json",
            {"enabledMcpjsonServers": ["engram"]},
        )
        write_json(self.sandbox.home / ".gemini/trustedFolders.json", {ws: "TRUST_FOLDER"})


def write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


@pytest.fixture
def hosts(sandbox: Sandbox) -> Hosts:
    """Host CLIs over the sandbox, workspace already trusted."""
    box = Hosts(sandbox)
    box.trust_workspace()
    return box
