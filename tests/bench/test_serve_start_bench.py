"""The serve start-up benchmark still runs end to end (one run; figures are for humans)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "serve_start_bench.py"


def test_one_run_reports_every_figure(sandbox: Sandbox) -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--runs", "1", "--json"],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["runs"] == 1 and figures["target_s"] == 0.5
    assert figures["serve_median_s"] > 0 and figures["bare_python_median_s"] > 0
    assert figures["serve_cpu_median_s"] > 0 and len(figures["load_average"]) == 2
