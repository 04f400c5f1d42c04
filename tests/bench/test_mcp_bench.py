"""The MCP bench runs twice in a row on the same cache (figures are for humans)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
        assert "same search in a waiting process" in result.stdout


@pytest.mark.slow
def test_instructions_are_counted_per_call(sandbox: Sandbox, tmp_path: Path) -> None:
    if shutil.which("valgrind") is None:
        pytest.fail("valgrind is not installed (apt-get install valgrind)")
    argv = [sys.executable, str(SCRIPT), "--sizes", "30", "--spawns", "1", "--calls", "2"]
    argv += ["--cache", str(tmp_path / "cache"), "--instructions", "1"]
    env = sandbox.env(ENGRAM_SEARCH="lexical")  # no embedder to load under valgrind
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=900)
    assert result.returncode == 0, f"{result.stdout[-400:]} {result.stderr}"
    line = next(x for x in result.stdout.splitlines() if "instructions per mem_search" in x)
    assert "server" in line and "in-process search" in line and "server / tool" in line
