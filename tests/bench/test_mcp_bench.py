"""The MCP bench runs twice in a row on the same cache (figures are for humans)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "mcp_bench.py"


def test_runs_twice_on_one_cache(sandbox: Sandbox, tmp_path: Path) -> None:
    argv = [sys.executable, str(SCRIPT), "--sizes", "30", "--spawns", "1", "--calls", "2"]
    argv += ["--cache", str(tmp_path / "cache")]
    for run in (1, 2):
        result = subprocess.run(
            argv, capture_output=True, text=True, env=sandbox.env(), timeout=300
        )
        assert result.returncode == 0, f"run {run}: {result.stdout[-400:]} {result.stderr}"
        assert "mem_search" in result.stdout and "load average" in result.stdout
