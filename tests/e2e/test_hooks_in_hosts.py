"""Real Claude Code, Codex and Gemini CLI load the hook files `engram link` writes without a
settings error, and `engram hook` answers a scripted SessionStart in each host's schema."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from engram.memory.save import save_observation
from engram.store.db import Store
from tests.e2e.conftest import NPM_BIN, VENV_BIN, Hosts

pytestmark = pytest.mark.e2e

CODEX_KEYS = {"continue", "stopReason", "systemMessage", "suppressOutput", "decision", "reason"}


def remember(hosts: Hosts, title: str) -> None:
    store = Store.open(hosts.sandbox.data_dir)
    try:
        save_observation(store, title=title, content="why", project="workspace")
    finally:
        store.close()


def session_start(hosts: Hosts, host: str, **extra: str) -> str:
    payload = {
        "hook_event_name": "SessionStart",
        "source": "startup",
        "session_id": f"e2e-{host}",
        "cwd": str(hosts.sandbox.workspace),
        **extra,
    }
    done = subprocess.run(
        [str(VENV_BIN / "engram"), "hook", host],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=hosts.env(),
        cwd=hosts.sandbox.workspace,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


def test_claude_code_accepts_the_hooks(hosts: Hosts) -> None:
    hosts.engram("link", "claude")
    hosts.engram("link", "claude", "--global")
    doctor = hosts.host("claude", "doctor")
    out = doctor.stdout + doctor.stderr
    assert "Claude Code doctor" in out, out
    assert "Invalid settings" not in out, out
    remember(hosts, "Claude sees this at session start")
    answer = json.loads(session_start(hosts, "claude"))
    assert set(answer) == {"hookSpecificOutput"}
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Claude sees this at session start" in answer["hookSpecificOutput"]["additionalContext"]


def test_claude_code_would_report_a_broken_hook(hosts: Hosts) -> None:
    # The check above can fail: Claude Code's doctor does report invalid hook entries.
    settings = hosts.sandbox.workspace / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    hook = {"type": "command", "command": "engram hook claude", "timeout": "ten"}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))
    doctor = hosts.host("claude", "doctor")
    assert "Invalid settings" in doctor.stdout + doctor.stderr


def gemini_listing(hosts: Hosts) -> str:
    done = hosts.host("gemini", "mcp", "list")
    return done.stdout + done.stderr


def test_gemini_cli_accepts_the_hooks(hosts: Hosts) -> None:
    hosts.engram("link", "gemini")
    hosts.engram("link", "gemini", "--global")
    out = gemini_listing(hosts)
    assert "Invalid configuration" not in out, out
    assert "engram" in out, out
    remember(hosts, "Gemini sees this")
    stdout = session_start(hosts, "gemini")
    answer = json.loads(stdout)  # Gemini wants JSON only on stdout
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Gemini sees this" in answer["hookSpecificOutput"]["additionalContext"]


def test_gemini_cli_would_report_a_broken_hook(hosts: Hosts) -> None:
    settings = hosts.sandbox.workspace / ".gemini" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    hook = {"type": "command", "command": "engram hook gemini", "timeout": "ten"}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))
    assert "Invalid configuration" in gemini_listing(hosts)


def codex_hooks(hosts: Hosts) -> dict[str, Any]:
    """Ask a real `codex app-server` which hooks it loaded (JSON-RPC `hooks/list`)."""
    server = subprocess.Popen(
        [str(NPM_BIN / "codex"), "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=hosts.env(),
        cwd=hosts.sandbox.workspace,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        requests = [
            {
                "id": 1,
                "method": "initialize",
                "params": {"clientInfo": {"name": "t", "version": "0"}},
            },
            {"method": "initialized"},
            {"id": 2, "method": "hooks/list", "params": {"cwds": [str(hosts.sandbox.workspace)]}},
        ]
        for request in requests:
            server.stdin.write(json.dumps({"jsonrpc": "2.0", **request}) + "\n")
        server.stdin.flush()
        for line in server.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                result: dict[str, Any] = message["result"]["data"][0]
                return result
        raise AssertionError("codex app-server closed without answering hooks/list")
    finally:
        server.kill()
        server.wait(timeout=30)


def test_codex_loads_the_hooks_and_waits_for_trust(hosts: Hosts) -> None:
    hosts.engram("link", "codex", "--global")
    listed = codex_hooks(hosts)
    assert listed["errors"] == [] and listed["warnings"] == []
    ours = [h for h in listed["hooks"] if h["command"] == "engram hook codex"]
    assert {h["eventName"] for h in ours} == {"sessionStart", "userPromptSubmit", "postCompact"}
    assert {h["timeoutSec"] for h in ours} == {10}
    assert {h["trustStatus"] for h in ours} == {"untrusted"}  # the user trusts it, not Engram
    doctor = hosts.run(str(VENV_BIN / "engram"), "doctor", "--check", "host.codex_hook_untrusted")
    (warning,) = [
        line for line in doctor.stdout.splitlines() if "host.codex_hook_untrusted" in line
    ]
    assert warning.startswith("WARN")
    for event in ("SessionStart", "UserPromptSubmit", "PostCompact"):
        assert event in warning
    remember(hosts, "Codex sees this")
    answer = json.loads(session_start(hosts, "codex"))
    assert set(answer) <= CODEX_KEYS | {"hookSpecificOutput"}
    assert set(answer["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert "Codex sees this" in answer["hookSpecificOutput"]["additionalContext"]


def test_codex_installs_the_engram_plugin_and_loads_its_hooks(hosts: Hosts) -> None:
    from engram.assets import asset_path

    (hosts.sandbox.home / ".codex").mkdir(exist_ok=True)
    added = hosts.host("codex", "plugin", "marketplace", "add", str(asset_path("plugin", "codex")))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = hosts.host("codex", "plugin", "add", "engram@engram")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = codex_hooks(hosts)
    assert listed["errors"] == [] and listed["warnings"] == []
    ours = [h for h in listed["hooks"] if h["pluginId"] == "engram@engram"]
    assert {h["eventName"] for h in ours} == {"sessionStart", "userPromptSubmit", "postCompact"}
    assert {h["command"] for h in ours} == {"engram hook codex"}


def test_opencode_finds_the_memory_protocol_skill(hosts: Hosts) -> None:
    hosts.engram("link", "opencode")
    assert (hosts.sandbox.workspace / ".opencode" / "plugins" / "engram.js").is_file()
    listed = hosts.host("opencode", "debug", "skill")
    skills = {s["name"]: s for s in json.loads(listed.stdout[listed.stdout.index("[") :])}
    assert "memory-protocol" in skills, listed.stdout[-2000:]
    assert "compaction" in skills["memory-protocol"]["description"]
