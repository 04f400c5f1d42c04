"""The sync benchmark still runs end to end (on a tiny store; 10k is for humans)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "sync_bench.py"


def test_a_tiny_run_prints_every_figure(sandbox: Sandbox) -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--size", "300", "--repeats", "1"],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "### 300 observations" in result.stdout
    assert result.stdout.count("x |") == 4  # export and import ratios, wall and CPU
    assert "chunk bytes per observation:" in result.stdout
