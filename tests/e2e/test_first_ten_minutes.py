"""The README's first ten minutes, for real: install Engram as the README says (its `uv tool
install` line, run in the clone, into an empty home), `cd` into another git repository, `engram link <host>`,
do the printed next step, and the real host CLI shows engram Connected; every hook command link
wrote runs cleanly under the host's PATH (no "engram: not found").

Only what the README puts on PATH is there: the tool's bin folder, the host CLIs, /usr/bin.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engram.testing import Sandbox
from tests.e2e.conftest import ANSI, NPM_BIN, REPO, VENV_BIN, Hosts
from tests.e2e.readme_install import readme_install_argv

pytestmark = pytest.mark.e2e

CACHE = NPM_BIN.parents[2]  # ${ENGRAM_TEST_CACHE:-~/.cache/engram-test}
CONNECTED = {
    "claude": re.compile(r"^engram: engram-mcp.* - ✔ Connected", re.M),
    "gemini": re.compile(r"^✓ engram: engram-mcp .*- Connected", re.M),
    "opencode": re.compile(r"✓ engram\s+connected", re.M),
}
NEXT_STEP = {
    "claude": "trust the folder and approve the project MCP server `engram`",
    "gemini": "trust the folder",
    "opencode": "nothing to approve",
}
EVENTS = {
    "claude": ["SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"],
    "gemini": ["SessionStart", "BeforeAgent", "PreCompress", "SessionEnd"],
    "opencode": ["session.created", "chat.message", "session.compacted"],
}


class Machine:
    """An empty home with Engram installed the README's way, and a project to link."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.bin = sandbox.home / ".local" / "bin"
        self.project = sandbox.workspace

    def env(self) -> dict[str, str]:
        env = self.sandbox.env(
            PATH=os.pathsep.join(
                [str(self.bin), str(NPM_BIN), "/usr/local/bin", "/usr/bin", "/bin"]
            ),
            UV_CACHE_DIR=str(CACHE / "uv"),
            UV_TOOL_DIR=str(self.sandbox.home / ".local/share/uv/tools"),
            UV_TOOL_BIN_DIR=str(self.bin),
            UV_PYTHON_DOWNLOADS="never",
            NO_COLOR="1",
            CI="1",
        )
        for key in ("ENGRAM_DATA_DIR", "PYTHONPATH", "VIRTUAL_ENV"):
            env.pop(key, None)  # a fresh machine: the store goes to ~/.engram
        return env

    def run(self, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            list(argv),
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env(),
            cwd=self.project,
            timeout=300,
            stdin=None if stdin is not None else subprocess.DEVNULL,
        )
        done.stdout, done.stderr = ANSI.sub("", done.stdout), ANSI.sub("", done.stderr)
        return done

    def install(self) -> None:
        """The README's `uv tool install ...` in the clone (uv comes from the dev extra)."""
        argv = readme_install_argv()
        done = subprocess.run(
            [str(VENV_BIN / "uv"), *argv[1:], "--quiet"],
            capture_output=True,
            text=True,
            env=self.env(),
            cwd=REPO,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        assert (self.bin / "engram").exists() and (self.bin / "engram-mcp").exists()


@pytest.fixture
def machine(sandbox: Sandbox) -> Machine:
    box = Machine(sandbox)
    box.install()
    subprocess.run(["git", "init", "-q"], cwd=box.project, check=True)
    return box


def follow_next_step(machine: Machine, host: str) -> None:
    """What the host records when the user answers its dialog as the printed step says."""
    if host in ("claude", "gemini"):
        Hosts(machine.sandbox).trust_workspace()


def hook_commands(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [c for k, v in value.items() for c in ([v] if k == "command" else hook_commands(v))]
    if isinstance(value, list):
        return [c for v in value for c in hook_commands(v)]
    return []


def written_hooks(machine: Machine, host: str) -> list[list[str]]:
    """Every hook command link wrote for ``host``, as argv lists."""
    ws = machine.project
    if host == "opencode":
        plugin = (ws / ".opencode/plugins/engram.js").read_text()
        found = re.search(r"^const ENGRAM = (\[.*\]);$", plugin, re.M)
        assert found, "the OpenCode plugin names no engram program"
        return [[*json.loads(found.group(1)), "hook", "opencode"]]
    rel = {"claude": ".claude/settings.json", "gemini": ".gemini/settings.json"}[host]
    commands = set(hook_commands(json.loads((ws / rel).read_text())["hooks"]))
    return [shlex.split(c) for c in sorted(commands)]


@pytest.mark.parametrize("host", ["claude", "gemini", "opencode"])
def test_readme_install_link_next_step_connected(machine: Machine, host: str) -> None:
    version = machine.run("engram", "--version")
    assert version.returncode == 0 and version.stdout.startswith("engram "), version.stderr
    linked = machine.run("engram", "link", host)
    assert linked.returncode == 0, linked.stdout + linked.stderr
    (step,) = [
        line.strip() for line in linked.stdout.splitlines() if line.strip().startswith("next:")
    ]
    assert NEXT_STEP[host] in step, linked.stdout
    follow_next_step(machine, host)
    listed = machine.run(str(NPM_BIN / host), "mcp", "list")
    out = listed.stdout + listed.stderr
    assert CONNECTED[host].search(out), out
    for argv in written_hooks(machine, host):
        assert Path(argv[0]).name == "engram" and argv[1:3] == ["hook", host]
        for event in EVENTS[host]:
            payload = {
                "hook_event_name": event,
                "event": event,
                "session_id": f"first-ten-{host}",
                "cwd": str(machine.project),
                "prompt": "add rate limiting to login",
            }
            done = machine.run(*argv, stdin=json.dumps(payload))
            assert done.returncode == 0 and done.stderr == "", (argv, event, done.stderr)
    doctor = machine.run("engram", "doctor", "--check", "host.hook_command")
    assert "FAIL" not in doctor.stdout, doctor.stdout


def test_doctor_after_the_readme_install_agrees_with_it(machine: Machine) -> None:
    fresh = machine.run("engram", "doctor")
    assert fresh.returncode == 0 and "WARN" not in fresh.stdout, fresh.stdout
    assert fresh.stdout.strip().endswith("doctor: healthy"), fresh.stdout
    for host in ("claude", "gemini"):
        assert machine.run("engram", "link", host).returncode == 0
        follow_next_step(machine, host)
    linked = machine.run("engram", "doctor").stdout
    warnings = [line for line in linked.splitlines() if line.startswith("WARN")]
    # The commands live in the uv tool bin folder, which a desktop launcher may not have on
    # PATH: one grouped warning for every registration and hook naming them, one remedy.
    assert len(warnings) == 1, linked
    assert warnings[0].startswith("WARN host.shell_path_only: ") and " places]" in warnings[0]
    remedies = [line for line in linked.splitlines() if line.strip().startswith("->")]
    assert len(remedies) == 1 and "log in again" in remedies[0], linked
    assert "pipx install engram-keeper" not in linked
    assert linked.strip().endswith("doctor: healthy, 1 warning worth a look"), linked
