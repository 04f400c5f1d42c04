"""Start-up stays lean: answering initialize imports no tool module, store or memory code."""

from __future__ import annotations

import subprocess
import sys

from engram.testing import Sandbox
from tests.server.mcp_process import ENGRAM_MCP, initialize


def test_initialize_is_answered_without_loading_tools_or_the_store(sandbox: Sandbox) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", ENGRAM_MCP],
        input=(initialize(1)[0] + "\n").encode(),
        capture_output=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=120,
    )
    assert b'"protocolVersion"' in proc.stdout
    imported = [line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines()]
    assert "engram.server.quickstart" in imported
    heavy = [m for m in imported if m.startswith(("engram.memory", "engram.store", "rich"))]
    assert heavy == []
    assert not any(m.startswith("engram.server.mem_tools") for m in imported)
    assert not sandbox.data_dir.exists()
