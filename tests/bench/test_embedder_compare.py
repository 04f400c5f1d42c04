"""bench/embedder_compare.py: every installed embedder ranked by its vectors alone."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "embedder_compare.py"


def _run(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *flags], capture_output=True, text=True, timeout=300
    )


def test_the_built_in_embedder_is_measured_with_its_cost_and_the_load() -> None:
    result = _run(
        "--embedders", "wordllama-l2-supercat", "--kinds", "paraphrase,concept", "--limit", "300"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(
        r"CPU per memory [\d.]+ ms, per query [\d.]+ ms \(load [\d. ]+\)", result.stdout
    )
    rows = dict(re.findall(r"^\| (\w+) \| [\d.]+ \| ([\d.]+) \|", result.stdout, re.M))
    assert set(rows) == {"paraphrase", "concept"}, result.stdout
    assert float(rows["paraphrase"]) >= 0.5  # vectors alone find most reworded questions


def test_an_embedder_or_kind_not_here_is_a_one_line_error() -> None:
    result = _run("--embedders", "no-such-model")
    assert result.returncode != 0
    assert "no embedder no-such-model" in result.stderr + result.stdout
    result = _run("--kinds", "nonsense")
    assert result.returncode == 2 and "unknown kind nonsense" in result.stdout
