"""The cloud benchmark runs end to end on tiny sizes (1k-100k and 50 clients are for humans)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "cloud_bench.py"


@pytest.mark.slow
def test_a_tiny_run_prints_every_figure_and_checks_the_fleet(sandbox: Sandbox) -> None:
    argv = [sys.executable, str(SCRIPT), "--sizes", "100,1000", "--repeats", "1"]
    argv += ["--fleet-clients", "4", "--fleet-mutations", "60"]
    env = {k: v for k, v in sandbox.env().items() if k != "ENGRAM_DATABASE_URL"}
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "### 100 observations" in out and "### 1,000 observations" in out
    assert out.count("- push / copy: throughput") == 2
    assert out.count("- pull / select: throughput") == 2
    assert "- push 100 -> 1,000 (10x rows): CPU" in out
    assert "bytes per pushed observation" in out
    assert "- lost 0, duplicated 0 in the database (240 rows" in out
    assert "pull p50" in out and "p95" in out and "- ok (load" in out
    assert out.startswith("cloud bench: load average at start")
    assert "load average at end" in out
