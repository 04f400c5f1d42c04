"""The citations benchmark runs end to end on a small repository and meets its accuracy goals
(precision and recall of stale >= 0.98, nothing without citations flagged, renames followed).
Its timings are printed for humans, never asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "citations_bench.py"


def test_a_small_run_meets_the_accuracy_goals(sandbox: Sandbox) -> None:
    args = ["--files", "64", "--memories", "80", "--plain", "20", "--seed", "7"]
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--observations", "40", "--runs", "2", "--json"],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["stale"]["expected"] > 0 and figures["changed"]["expected"] > 0
    assert figures["stale"]["precision"] >= 0.98 and figures["stale"]["recall"] >= 0.98
    assert figures["changed"]["precision"] >= 0.98 and figures["changed"]["recall"] >= 0.98
    assert figures["plain_flagged"] == 0
    followed, renamed = figures["renames_followed"]
    assert renamed > 0 and followed == renamed
    assert figures["cold_equals_warm"] is True
    assert figures["hook"]["checking on ratio"] > 0
