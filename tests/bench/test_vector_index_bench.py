"""bench/vector_index_bench.py runs on any store and prints both modes side by side."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from engram.memory.save import save_observation
from engram.store.db import Store

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "vector_index_bench.py"


def test_the_bench_compares_the_file_with_reading_the_store(tmp_path: Path) -> None:
    with Store.open(tmp_path, env={}) as store:
        for i in range(20):
            save_observation(
                store, title=f"note {i}", content="leak in the worker", project="shop",
                surface_conflicts=False,
            )  # fmt: skip
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--data-dir", str(tmp_path), "--rounds", "1",
         "--queries", "2"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "load average" in result.stdout
    for figure in ("first_cpu", "rss_mb", "search_filtered_p95", "nearest_all_p50"):
        assert re.search(rf"\| {figure} \| [\d.]+ \| [\d.]+ \| [\d.na]+ \|", result.stdout), figure
    assert list((tmp_path / "vectors").glob("*.vec"))


def test_the_sqlite_vec_bench_says_in_one_line_when_it_cannot_measure(tmp_path: Path) -> None:
    hidden = (
        "import sys, runpy; sys.modules['sqlite_vec'] = None; sys.argv = sys.argv[1:];"
        " runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    result = subprocess.run(
        [sys.executable, "-c", hidden, str(SCRIPT.with_name("sqlite_vec_bench.py")),
         "--data-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "sqlite-vec not measurable here: sqlite-vec is not installed (pip install sqlite-vec)"
    )
