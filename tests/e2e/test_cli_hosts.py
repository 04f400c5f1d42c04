"""The terminal agents whose CLIs install from npm or PyPI and run without an account: after
`engram link <host>` and the `next:` step it prints, the host itself lists engram (connected,
where the host reports it); every hook command link wrote runs under the host's PATH, exit 0.

CLIs come pinned from ``scripts/install-host-clis``: npm ones in ``<cache>/npm``, the PyPI ones
(Python >= 3.12) in ``<cache>/py312``.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from engram.testing import Sandbox
from tests.e2e.conftest import NPM_BIN, Hosts

pytestmark = pytest.mark.e2e

PYPI_BIN = NPM_BIN.parents[2] / "py312" / "bin"


@pytest.fixture
def box(sandbox: Sandbox) -> Hosts:
    """Host CLIs over a fresh sandbox: a git repository nobody trusted or approved yet."""
    subprocess.run(["git", "init", "-q"], cwd=sandbox.workspace, check=True)
    return Hosts(sandbox)


def cli(box: Hosts, program: str, *args: str) -> str:
    """Run a host CLI (npm or PyPI); its stdout + stderr."""
    path = PYPI_BIN / program if program in ("kimi", "python") else NPM_BIN / program
    if not path.exists():
        pytest.fail(f"{path} is missing: run scripts/install-host-clis")
    done = box.run(str(path), *args)
    return done.stdout + done.stderr


def reports(box: Hosts, pattern: str, program: str, *args: str) -> str:
    """Run a host's list command until its output matches ``pattern`` (six tries, a pause
    growing between them: on a loaded machine Droid still says "connecting" and Qwen "timed
    out" when our server answers late; a wrong answer still fails every try)."""
    for attempt in range(6):
        out = cli(box, program, *args)
        if re.search(pattern, out):
            return out
        time.sleep(attempt)
    raise AssertionError(f"{program} {' '.join(args)} never matched {pattern!r}:\n{out}")


def next_step(linked: str) -> str:
    """The one ``next:`` line link printed."""
    (step,) = [line.strip() for line in linked.splitlines() if line.strip().startswith("next:")]
    return step


def printed_command(step: str, program: str) -> list[str]:
    """The first backticked command in ``step`` that runs ``program``."""
    found = re.search(rf"`({program} [^`]+)`", step)
    assert found, step
    return shlex.split(found.group(1))


def hook_commands(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [c for k, v in value.items() for c in ([v] if k == "command" else hook_commands(v))]
    if isinstance(value, list):
        return [c for v in value for c in hook_commands(v)]
    return []


def run_every_hook(box: Hosts, host: str, settings: Path) -> None:
    """Each hook command in ``settings``, fed each event it is registered for, exits 0 quietly."""
    hooks = json.loads(settings.read_text())["hooks"]
    assert hooks, settings
    for event, groups in hooks.items():
        for command in sorted(set(hook_commands(groups))):
            payload = {
                "hook_event_name": event,
                "session_id": f"e2e-{host}",
                "cwd": str(box.sandbox.workspace),
                "prompt": "add rate limiting to login",
                "source": "startup",
            }
            done = subprocess.run(
                shlex.split(command),
                input=json.dumps(payload),
                capture_output=True,
                text=True,
                env=box.env(),
                cwd=box.sandbox.workspace,
                timeout=60,
            )
            assert done.returncode == 0 and done.stderr == "", (command, event, done.stderr)


def answers_initialize(box: Hosts, entry: dict[str, Any]) -> None:
    """Start the server command an entry names and get its ``initialize`` answer (for hosts
    whose list command does not start servers)."""
    argv = [entry["command"], *entry.get("args", [])]
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "1"},
        },
    }
    done = subprocess.run(
        argv,
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        env=box.env(),
        cwd=box.sandbox.workspace,
        timeout=60,
    )
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"]["name"], done.stdout


def test_copilot_lists_the_workspace_server_once_the_folder_is_trusted(box: Hosts) -> None:
    step = next_step(box.engram("link", "copilot").stdout)
    assert "trust the folder" in step
    assert "engram" not in cli(box, "copilot", "mcp", "list")  # untrusted: not read, as said
    # What Copilot records when the user answers its trust prompt.
    config = box.sandbox.home / ".copilot" / "config.json"
    config.parent.mkdir(exist_ok=True)
    config.write_text(json.dumps({"trustedFolders": [str(box.sandbox.workspace)]}))
    shown = cli(box, "copilot", "mcp", "get", "engram")
    assert "Status: Enabled" in shown and "Source: Workspace" in shown, shown
    entry = json.loads((box.sandbox.workspace / ".github/mcp.json").read_text())
    answers_initialize(box, entry["mcpServers"]["engram"])


def test_copilot_user_server_is_listed_and_unlink_forgets_it(box: Hosts) -> None:
    box.engram("link", "copilot", "--global")
    out = cli(box, "copilot", "mcp", "list")
    assert re.search(r"User servers:\s+engram \(local\)", out), out
    box.engram("unlink", "copilot", "--global")
    assert "engram" not in cli(box, "copilot", "mcp", "list")


def test_qwen_connects_after_the_printed_approval_and_runs_the_hooks(box: Hosts) -> None:
    step = next_step(box.engram("link", "qwen").stdout)
    approve = printed_command(step, "qwen")
    assert approve == ["qwen", "mcp", "approve", "engram"]
    doctor = ["doctor", "--check", "host.qwen_pending_approval"]
    assert "WARN host.qwen_pending_approval" in box.engram(*doctor).stdout
    assert "Approved" in cli(box, "qwen", *approve[1:])
    assert "ok   host.qwen_pending_approval" in box.engram(*doctor).stdout  # what qwen wrote
    reports(box, r"✓ engram: engram-mcp\s+\(stdio\) - Connected", "qwen", "mcp", "list")
    run_every_hook(box, "qwen", box.sandbox.workspace / ".qwen/settings.json")


def test_qwen_user_server_connects_with_nothing_to_approve(box: Hosts) -> None:
    step = next_step(box.engram("link", "qwen", "--global").stdout)
    assert "approve" not in step
    reports(box, r"✓ engram: engram-mcp\s+\(stdio\) - Connected", "qwen", "mcp", "list")


def test_auggie_lists_workspace_and_user_servers(box: Hosts) -> None:
    assert "nothing to approve" in next_step(box.engram("link", "auggie").stdout)
    box.engram("link", "auggie", "--global")
    out = cli(box, "auggie", "mcp", "list")
    assert re.search(r"✓ engram\s+stdio\s+engram-mcp", out), out  # one name: the project entry wins
    box.engram("unlink", "auggie")
    assert re.search(r"✓ engram\s+stdio\s+engram-mcp", cli(box, "auggie", "mcp", "list"))
    entry = json.loads((box.sandbox.home / ".augment/settings.json").read_text())
    answers_initialize(box, entry["mcpServers"]["engram"])


def test_droid_connects_in_both_scopes_and_runs_the_hooks(box: Hosts) -> None:
    assert "connected" in next_step(box.engram("link", "droid").stdout)
    box.engram("link", "droid", "--global")
    reports(box, r"engram\s+stdio\s+connected\s+\[project\]", "droid", "mcp", "list")
    run_every_hook(box, "droid", box.sandbox.workspace / ".factory/settings.json")
    run_every_hook(box, "droid", box.sandbox.home / ".factory/settings.json")


def droid_config_check(box: Hosts) -> dict[str, Any]:
    out = cli(box, "droid", "doctor", "--config", "--json")
    report = json.loads(out[out.index("{") :])
    (check,) = [r for r in report["results"] if r["category"] == "configuration"]
    return check


def test_droid_validates_the_hook_and_server_files_link_wrote(box: Hosts) -> None:
    settings = box.sandbox.workspace / ".factory/settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  // my droid settings\n  "model": "sonnet"\n}\n')
    box.engram("link", "droid")
    box.engram("link", "droid", "--global")
    check = droid_config_check(box)  # Droid's own schema check of every settings/mcp file
    assert check["status"] == "pass", check
    # ...which does fail on a hook Droid cannot read
    broken = json.loads(settings.read_text().replace("// my droid settings", ""))
    broken["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] = "ten"
    settings.write_text(json.dumps(broken))
    assert droid_config_check(box)["status"] == "fail"


def test_amp_lists_workspace_and_global_servers(box: Hosts) -> None:
    step = next_step(box.engram("link", "amp").stdout)
    assert "amp mcp approve engram" in step and "log in" in step
    box.engram("link", "amp", "--global")
    out = cli(box, "amp", "mcp", "list")
    assert re.search(r"Workspace .amp/settings.json\s+engram\s+command\s+engram-mcp", out), out
    assert re.search(r"Global \S+\s+engram\s+command\s+engram-mcp", out), out
    entry = json.loads((box.sandbox.home / ".config/amp/settings.json").read_text())
    answers_initialize(box, entry["amp.mcpServers"]["engram"])


# Kimi's own config loader: on a first run it writes its default config.toml; later it reads
# (and validates) the [[hooks]] tables link added.
KIMI_LOADS = """
from kimi_cli.config import load_config
print("hooks", [(h.event, h.command, h.timeout) for h in load_config().hooks])
"""


def test_kimi_connects_to_the_user_server_and_reads_the_hooks(box: Hosts) -> None:
    notice = box.engram("link", "kimi").stdout
    assert "engram link kimi --global" in notice and "next:" not in notice
    assert "hooks []" in cli(box, "python", "-c", KIMI_LOADS)  # Kimi's first run
    step = next_step(box.engram("link", "kimi", "--global").stdout)
    assert printed_command(step, "kimi") == ["kimi", "mcp", "list"]
    out = cli(box, "kimi", "mcp", "test", "engram")
    assert "✓ Connected to 'engram'" in out, out
    loaded = cli(box, "python", "-c", KIMI_LOADS)
    assert "('UserPromptSubmit', 'engram hook kimi', 10)" in loaded, loaded
    config = box.sandbox.home / ".kimi" / "config.toml"
    for event in ("SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"):
        payload = {"hook_event_name": event, "session_id": "e2e-kimi", "prompt": "hi"}
        done = subprocess.run(
            ["engram", "hook", "kimi"],
            input=json.dumps({**payload, "cwd": str(box.sandbox.workspace)}),
            capture_output=True,
            text=True,
            env=box.env(),
            cwd=box.sandbox.workspace,
            timeout=60,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), (event, done)
    assert "engram hook kimi" in config.read_text()


# Mistral Vibe has no `mcp list`: ask Vibe's own code to read its config and start the servers
# it found, as a Vibe session does at start-up (its config loader and its MCP stdio client).
VIBE_LOADS = """
import asyncio, os
os.environ["MISTRAL_API_KEY"] = "never-used"  # Vibe's loader wants a key; nothing calls Mistral
from vibe.core.paths.config_paths import unlock_config_paths
unlock_config_paths()
from vibe.core.config import VibeConfig
from vibe.core.tools.mcp import list_tools_stdio
servers = [s for s in VibeConfig().mcp_servers if s.name == "engram"]
print("servers", [(s.transport, s.argv()) for s in servers])
tools = asyncio.run(list_tools_stdio(servers[0].argv(), startup_timeout_sec=30))
print("tools", len(tools), sorted(t.name for t in tools)[:3])
"""


def test_vibe_reads_the_table_and_starts_engram(box: Hosts) -> None:
    step = next_step(box.engram("link", "vibe", "--global").stdout)
    assert "start `vibe`" in step
    out = cli(box, "python", "-c", VIBE_LOADS)
    assert "servers [('stdio', ['engram-mcp'])]" in out, out
    found = re.search(r"^tools (\d+) ", out, re.M)
    assert found and int(found.group(1)) > 10, out
    box.engram("unlink", "vibe", "--global")
    assert "servers []" in cli(box, "python", "-c", VIBE_LOADS.split("tools =")[0])


def test_link_all_links_the_host_clis_installed_here_and_skips_the_rest(box: Hosts) -> None:
    out = box.engram("link", "all", "--global", "--no-hooks").stdout
    for title in ("GitHub Copilot CLI", "Qwen Code", "Factory Droid", "Amp", "Augment Auggie"):
        assert f"{title} (global):" in out, out  # their programs are on this PATH
    assert re.search(r"^skipped   Cursor: not found \(no `cursor` on PATH", out, re.M), out
    assert re.search(r"^skipped   Kimi Code CLI: not found", out, re.M), out
    listed = cli(box, "copilot", "mcp", "list")
    assert re.search(r"User servers:\s+engram \(local\)", listed), listed
