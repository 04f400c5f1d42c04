"""bench/run_all.py rewrites the figures section of the performance doc, and only that."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "run_all.py"
DOC = "# Performance\n\nHand-written analysis stays.\n\n## Later section\n\nText.\n"


def run(sandbox: Sandbox, doc: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, str(SCRIPT), "--quick", "--doc", str(doc), *args]
    return subprocess.run(argv, capture_output=True, text=True, env=sandbox.env(), timeout=300)


def test_section_is_written_once_and_rewritten_in_place(sandbox: Sandbox, tmp_path: Path) -> None:
    doc = tmp_path / "performance.md"
    doc.write_text(DOC)
    for _ in range(2):
        result = run(sandbox, doc, "--only", "conflicts")
        assert result.returncode == 0, result.stdout + result.stderr
    text = doc.read_text()
    assert text.count("<!-- run_all:begin -->") == 1 and text.count("### conflicts") == 1
    assert text.startswith("# Performance\n") and "Hand-written analysis stays." in text
    assert text.endswith("## Later section\n\nText.\n")
    assert "load average" in text and "UTC, commit" in text
    assert re.search(r"^`\.venv/bin/python bench/conflicts_bench\.py [^`]*` — commit `[0-9a-f]{7,}\+?`, "
                     r"20\d\d-\d\d-\d\d \d\d:\d\d UTC, load average ", text, re.M)  # fmt: skip
    assert "FindCandidates" in text  # the bench's own figures


def test_unknown_bench_is_one_line_and_writes_nothing(sandbox: Sandbox, tmp_path: Path) -> None:
    doc = tmp_path / "performance.md"
    doc.write_text(DOC)
    result = run(sandbox, doc, "--only", "nosuch")
    assert result.returncode == 2
    assert result.stdout.strip().splitlines() == [
        "error: unknown bench nosuch (known: hook, mcp, first-answer, serve-start, store, "
        "conflicts, sync, autosync, http, writers, cloud, retrieval, embedders, vector-index, "
        "sqlite-vec, tui, peers, citations, citations-real)"
    ]
    assert doc.read_text() == DOC
