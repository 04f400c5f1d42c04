"""The HTTP benchmark still runs end to end (on a tiny store; 100k is for humans)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "http_bench.py"


def test_a_tiny_run_reports_every_figure(sandbox: Sandbox, tmp_path: Path) -> None:
    args = ["--size", "1500", "--cache", str(tmp_path / "cache"), "--repeats", "5", "--mix", "12"]
    load = ["--clients", "4", "--requests", "12", "--seconds", "30", "--json"]
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *args, *load],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    workloads = [row["workload"] for row in figures["search"]]
    assert workloads[0] == "query mix (12 queries x 3)"
    assert [w.split(" (")[0] for w in workloads[1:]] == ["very common", "mid", "rare"]
    mix = figures["search"][0]
    assert mix["searches"] == 36 and mix["p95_ratio"] > 0
    assert all(row["searches"] == 5 for row in figures["search"][1:])
    summary = figures["load"]
    assert summary["requests"] == 48 and summary["errors"] == 0
    assert summary["writes_acknowledged"] > 0 and summary["lost_writes"] == 0
    assert summary["integrity_check"] == "ok"
