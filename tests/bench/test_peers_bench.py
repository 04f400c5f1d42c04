"""bench/peers_bench.py runs twice in a row beside the Node reference server
(scripts/install-host-clis installs it; `.ci/run` runs that first)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "peers_bench.py"


def test_a_tiny_run_beside_the_node_server_prints_its_ratios(bench_env: dict[str, str]) -> None:
    argv = [sys.executable, str(SCRIPT), "--spawns", "1", "--saves", "2", "--sizes", "",
            "--skip", "v0.1.0,basic-memory"]  # fmt: skip
    for _ in range(2):
        result = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            env=bench_env,
            timeout=300,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert "peers: engram-mcp, server-memory (Node)" in result.stderr
        assert re.search(
            r"^\| engram-mcp \| \d+ \| \d+ \| \d+ \| [\d.]+x \| - \| \d+ \|$", result.stdout, re.M
        )
        assert re.search(
            r"^\| server-memory \(Node\) \| 9 \| \d+ \| \d+ \| 1\.00x \| - \|", result.stdout, re.M
        )
        assert re.search(r"^\| engram-mcp \| 2 \| [\d.]+ / [\d.]+ \| \d+ \|", result.stdout, re.M)
