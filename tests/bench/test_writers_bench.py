"""The concurrent-writers benchmark runs end to end twice in a row (tiny store; 100k is for
humans) and prints every figure beside its baseline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "writers_bench.py"


def test_a_tiny_run_twice_reports_every_figure(sandbox: Sandbox, tmp_path: Path) -> None:
    args = ["--size", "1500", "--cache", str(tmp_path / "cache"), "--saves", "20"]
    for _ in range(2):  # the second run reuses the cached store
        result = subprocess.run(
            [sys.executable, str(SCRIPT), *args, "--clients", "4", "--writes", "5"],
            capture_output=True,
            text=True,
            env=sandbox.env(),
            timeout=600,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        out = result.stdout
        assert "FAILED" not in out
        assert "save costs" in out and "the raw insert" in out
        assert "(writer process): 4 HTTP clients: 20 writes in" in out
        assert "(in the server): 4 HTTP clients: 20 writes in" in out
        assert "one in-process writer" in out
        assert "saves written by the server's writer process (the default), median of" in out
        assert "saves written in the server's own threads (ENGRAM_WRITER_PROCESS=0)" in out
        assert "client latency p50" in out and "server CPU per write (its writer's included)" in out
        assert "load average at the start" in out and "load average at the end" in out
        assert "errors: 0" in out
        assert "(after 4 x 5 untimed writes)" in out
