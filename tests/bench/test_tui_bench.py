"""bench/tui_bench.py still runs end to end (tiny stores; the real sizes are for humans)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "tui_bench.py"


def test_a_tiny_run_prints_every_figure(sandbox: Sandbox) -> None:
    cache = str(sandbox.root / "bench-cache")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "100,400", "--rounds", "1", "--cache", cache],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    assert [row.split(" | ")[:2] for row in rows[1:]] == [
        ["| in process", "100"],
        ["| in process", "400"],
        ["| real terminal", "100"],
        ["| real terminal", "400"],
    ]
    assert "in process: 400 vs 100 observations — dashboard " in result.stdout
    assert "real terminal: 400 vs 100 observations — dashboard " in result.stdout
