"""The first-answer bench runs twice in a row on one cache and prints its table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "first_answer_bench.py"


def test_runs_twice_and_prints_every_sequence(tmp_path: Path, bench_env: dict[str, str]) -> None:
    argv = [sys.executable, str(SCRIPT), "--rounds", "1", "--size", "30"]
    argv += ["--cache", str(tmp_path / "cache")]
    for run in (1, 2):
        result = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            env=bench_env,
            timeout=300,
        )
        assert result.returncode == 0, f"run {run}: {result.stdout[-400:]} {result.stderr}"
        out = result.stdout
        assert out.count("load average") == 2
        for label in (
            "mem_context |",
            "mem_search |",
            "mem_search, lexical",
            "mem_context, Claude Code",
        ):
            assert f"engram-mcp {label}" in out, out
        # scripts/install-host-clis (run by scripts/test first) installed the Node server.
        assert "server-memory (Node)" in out, result.stderr
