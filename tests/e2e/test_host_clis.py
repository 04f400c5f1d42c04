"""After `engram link`, the real host CLIs start our server; after `engram unlink`, they forget it.

Claude Code, Gemini CLI and OpenCode start every configured server for `mcp list` and report
whether it answered; Codex lists its configuration without starting servers.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e.conftest import Hosts

pytestmark = pytest.mark.e2e

CONNECTED = {
    "claude": re.compile(r"^engram: engram-mcp.* - ✔ Connected", re.M),
    "gemini": re.compile(r"^✓ engram: engram-mcp .*- Connected", re.M),
    "opencode": re.compile(r"✓ engram\s+connected", re.M),
}


def listed(hosts: Hosts, host: str) -> str:
    """What ``<host> mcp list`` prints (stdout + stderr)."""
    done = hosts.host(host, "mcp", "list")
    return done.stdout + done.stderr


def test_claude_workspace_link_connects_and_unlink_forgets(hosts: Hosts) -> None:
    hosts.engram("link", "claude")
    out = listed(hosts, "claude")
    assert CONNECTED["claude"].search(out), out
    hosts.engram("unlink", "claude")
    assert "engram" not in listed(hosts, "claude")


@pytest.mark.parametrize("host", ["gemini", "opencode"])
def test_global_link_connects_and_unlink_forgets(hosts: Hosts, host: str) -> None:
    hosts.engram("link", host, "--global")
    out = listed(hosts, host)
    assert CONNECTED[host].search(out), out
    hosts.engram("unlink", host, "--global")
    assert "engram" not in listed(hosts, host)


def test_codex_shows_the_managed_entry_and_forgets_it(hosts: Hosts) -> None:
    hosts.engram("link", "codex", "--global")
    shown = hosts.host("codex", "mcp", "get", "engram", "--json")
    assert shown.returncode == 0, shown.stderr
    entry = json.loads(shown.stdout)
    assert entry["enabled"] is True
    assert entry["transport"]["command"] == "engram-mcp"
    assert "engram" in hosts.host("codex", "mcp", "list").stdout
    hosts.engram("unlink", "codex", "--global")
    assert hosts.host("codex", "mcp", "get", "engram").returncode != 0
    assert "engram" not in hosts.host("codex", "mcp", "list").stdout


def test_the_printed_claude_command_registers_engram_for_the_user(hosts: Hosts) -> None:
    printed = hosts.engram("link", "claude", "--global").stdout
    command = next(line.strip() for line in printed.splitlines() if "claude mcp add" in line)
    argv = command.split()
    assert argv[:2] == ["claude", "mcp"]
    added = hosts.host("claude", *argv[1:])
    assert added.returncode == 0, added.stdout + added.stderr
    assert CONNECTED["claude"].search(listed(hosts, "claude"))
    removal = hosts.engram("unlink", "claude", "--global").stdout
    command = next(line.strip() for line in removal.splitlines() if "claude mcp remove" in line)
    assert hosts.host("claude", *command.split()[1:]).returncode == 0
    assert "engram" not in listed(hosts, "claude")


def test_claude_starts_the_server_with_always_load(hosts: Hosts) -> None:
    # --always-load only applies without Engram's Claude hooks (they inject context already)
    hosts.engram("link", "claude", "--always-load", "--no-hooks")
    shown = hosts.host("claude", "mcp", "get", "engram")
    out = shown.stdout + shown.stderr
    assert "Args: --always-load" in out, out
    assert "✔ Connected" in out, out


USER_CONFIGS = {
    "gemini": (
        ".gemini/settings.json",
        '{\r\n\t// my settings\r\n\t"ui": {"theme": "GitHub"},\r\n\t"mcpServers": {}\r\n}\r\n',
    ),
    "opencode": (
        "opencode.jsonc",
        '{\n  // OpenCode 2 layout, trailing commas\n  "$schema": "https://opencode.ai/config.json",\n'
        '  "mcp": {\n    "servers": {},\n  },\n}\n',
    ),
}


@pytest.mark.parametrize("host", sorted(USER_CONFIGS))
def test_the_host_reads_what_link_wrote_into_a_users_own_config(hosts: Hosts, host: str) -> None:
    rel, text = USER_CONFIGS[host]
    config = hosts.sandbox.workspace / rel
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(text.encode())
    hosts.engram("link", host)
    out = listed(hosts, host)
    assert CONNECTED[host].search(out), out
    hosts.engram("unlink", host)
    assert config.read_bytes() == text.encode()
    assert "engram" not in listed(hosts, host)
