"""After a real `engram link` (and what a user does once: approve, trust), doctor is all-pass."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engram.doctor.findings import Severity
from engram.doctor.host_checks import codex_engram_hooks
from engram.testing import Sandbox

VENV_BIN = Path(sys.executable).parent


def engram(sandbox: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    env = sandbox.env(
        PATH=f"{VENV_BIN}:/usr/bin:/bin", ENGRAM_MINIMAL_PATH=f"{VENV_BIN}:/usr/bin:/bin"
    )
    return subprocess.run(
        [sys.executable, "-m", "engram.cli.entry", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=sandbox.workspace,
        timeout=120,
    )


def user_approves(sandbox: Sandbox) -> None:
    """What the user does once: approve the Claude server, trust the Gemini folder and the
    Codex hooks (Engram never does this for them)."""
    ws = sandbox.workspace
    (ws / ".claude" / "settings.local.json").write_text('{"enabledMcpjsonServers": ["engram"]}')
    (sandbox.home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(ws): "TRUST_FOLDER"})
    )
    hooks = sandbox.home / ".codex" / "hooks.json"
    keys = [key for _, key in codex_engram_hooks(hooks, json.loads(hooks.read_text()))]
    trust = "".join(f'\n[hooks.state."{key}"]\ntrusted_hash = "sha256:0"\n' for key in keys)
    config = sandbox.home / ".codex" / "config.toml"
    config.write_text(config.read_text() + trust)


def test_clean_link_is_all_pass_and_planted_problems_fail(sandbox: Sandbox) -> None:
    for args in (
        ("claude",),
        ("gemini",),
        ("gemini", "--global"),
        ("cursor",),
        ("codex", "--global"),
    ):
        assert engram(sandbox, "link", *args).returncode == 0
    user_approves(sandbox)
    done = engram(sandbox, "doctor", "--json")
    report = json.loads(done.stdout)
    bad = [f for f in report["findings"] if f["severity"] in (Severity.WARN, Severity.FAIL)]
    assert bad == [], bad
    assert done.returncode == 0
    codes = {f["code"] for f in report["findings"]}
    assert {"host.registration", "host.hook_command", "store.round_trip"} <= codes

    (sandbox.workspace / ".cursor" / "mcp.json").write_text('{"mcpServers": {"engram": // x\n{}}}')
    done = engram(sandbox, "doctor")
    assert done.returncode == 1
    assert "FAIL host.strict_json" in done.stdout
