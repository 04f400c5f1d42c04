"""Config edits never lose another writer's text (issue 10, point 1).

A real program keeps adding keys to ``.mcp.json`` — rewriting it in place (truncate, then
write) or atomically (temporary file + rename) — while Engram links and unlinks Claude Code
50 times. Every key the program added must be in the file at the end.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engram.testing import Sandbox

HERE = Path(__file__).parent
CYCLES = 50
ORIGINAL = {"mcpServers": {"mine": {"command": "my-server"}}}


@pytest.mark.parametrize("style", ["in-place", "rename"])
def test_racing_writer_loses_nothing(sandbox: Sandbox, style: str) -> None:
    config = sandbox.workspace / ".mcp.json"
    config.write_text(json.dumps(ORIGINAL, indent=2) + "\n")
    stop = sandbox.root / "stop"
    writer = subprocess.Popen(
        [sys.executable, str(HERE / "config_writer.py"), str(config), style, str(stop), "400"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        cycles = subprocess.run(
            [sys.executable, str(HERE / "link_cycles.py"), str(CYCLES)],
            cwd=sandbox.workspace,
            env=sandbox.env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        stop.touch()
        written = int(writer.communicate(timeout=60)[0])
    assert "Traceback" not in cycles.stderr, cycles.stderr
    errors = [line for line in cycles.stderr.splitlines() if line.strip()]
    assert all("edit.changed_underneath" in e or "kept changing" in e for e in errors), errors
    servers = json.loads(config.read_text())["mcpServers"]
    missing = [n for n in range(written) if f"user-{n}" not in servers]
    assert written > 0 and not missing, f"{len(missing)} of {written} user edits lost"
    assert servers["mine"] == {"command": "my-server"}
