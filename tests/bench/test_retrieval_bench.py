"""The retrieval benchmark at the labelled set's own size (5k): search must keep recall@5 >= 0.9.

Not timed: only the recall figures are checked. The 100k / 1M runs are for humans
(bench/retrieval_bench.py, docs/search.md).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "retrieval_bench.py"


def _run(sandbox: Sandbox, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "5k", "--cache", str(sandbox.root / "c"), *flags],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_search_keeps_recall_at_5_of_at_least_0_9_on_the_labelled_set(sandbox: Sandbox) -> None:
    result = _run(sandbox, "--rankings", "engram", "--min-recall5", "0.9")
    assert result.returncode == 0, result.stdout + result.stderr
    overall = re.search(r"\| engram \| overall \| ([\d.]+) \| ([\d.]+) \|", result.stdout)
    assert overall is not None, result.stdout
    assert float(overall.group(2)) >= 0.9
    kinds = re.findall(r"\| engram \| (\w+) \|", result.stdout)
    assert kinds == ["exact", "paraphrase", "partial", "old", "project", "latest", "overall"]
    # the same run fails loudly when the bar is out of reach
    failing = _run(sandbox, "--rankings", "engram", "--min-recall5", "1.01")
    assert failing.returncode == 1
    assert "FAIL: engram recall@5" in failing.stdout
