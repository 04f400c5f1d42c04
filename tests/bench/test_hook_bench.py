"""The hook bench runs twice in a row on one cache, timing the hook as a host runs it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "hook_bench.py"


def test_runs_twice_the_way_a_host_runs_the_hook(sandbox: Sandbox, tmp_path: Path) -> None:
    argv = [sys.executable, str(SCRIPT), "--observations", "20", "--runs", "2"]
    argv += ["--cache", str(tmp_path / "cache")]
    env = sandbox.env(PYTHONDONTWRITEBYTECODE="1")
    for run in (1, 2):
        extra = ["--instructions"] if run == 2 else []
        result = subprocess.run(argv + extra, capture_output=True, text=True, env=env, timeout=300)
        assert result.returncode == 0, f"run {run}: {result.stdout[-400:]} {result.stderr}"
        assert "in-process" in result.stdout and "load average" in result.stdout
        assert "PYTHONDONTWRITEBYTECODE='1'" in result.stdout
    # The second run also counted instructions (or said how to get valgrind to count them).
    counted = re.search(r"python -c pass ([\d.]+)M,  in-process ([\d.]+)M", result.stdout)
    if shutil.which("valgrind"):
        assert counted is not None, result.stdout
        assert float(counted.group(2)) > float(counted.group(1)) > 1
    else:
        assert "instructions: valgrind not found" in result.stdout
    # The project came from the folder (its own repository), not from ENGRAM_PROJECT.
    assert (tmp_path / "cache" / "bench-project" / ".git").is_dir()
    bindings = (tmp_path / "cache" / "data-20" / "project-bindings.json").read_text()
    assert "git.example.invalid/team/bench-project" in bindings
