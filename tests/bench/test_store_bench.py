"""The benchmark script still runs end to end (on a tiny store; the real sizes are for humans)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "store_bench.py"


def test_a_tiny_run_prints_every_figure(sandbox: Sandbox) -> None:
    cache = sandbox.root / "bench-cache"
    result = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--sizes",
            "1k",
            "--repeats",
            "5",
            "--saves",
            "5",
            "--cache",
            str(cache),
        ],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "### 1,000 observations" in result.stdout
    assert "obs/s through Engram's save" in result.stdout
    table = [line for line in result.stdout.splitlines() if line.startswith("| very common")]
    assert len(table) == 2  # without and with the project filter
    # The saves it measured were removed again, so a rerun measures the same store.
    conn = sqlite3.connect(cache / "store-1000" / "engram.db")
    try:
        rows = conn.execute("SELECT project, count(*) FROM observations GROUP BY 1").fetchall()
    finally:
        conn.close()
    assert sum(count for _, count in rows) == 1000
    assert "bench-save" not in {project for project, _ in rows}


def test_a_bad_size_is_a_usage_error(sandbox: Sandbox) -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "lots"],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        timeout=60,
    )
    assert result.returncode == 2
    assert "not a size" in result.stderr
