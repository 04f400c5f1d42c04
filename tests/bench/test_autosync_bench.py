"""The autosync benchmark runs end to end on a tiny size against a live cloud server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "autosync_bench.py"


@pytest.mark.slow
def test_a_tiny_run_times_both_modes_and_every_on_save_reaches_the_cloud(sandbox: Sandbox) -> None:
    argv = [sys.executable, str(SCRIPT), "--rounds", "2", "--saves", "4"]
    env = {k: v for k, v in sandbox.env().items() if k != "ENGRAM_DATABASE_URL"}
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "autosync off: median" in out and "autosync on : median" in out
    assert "ratio on/off: median" in out
    assert "'on' saves that reached the cloud during the run: 8/8" in out
