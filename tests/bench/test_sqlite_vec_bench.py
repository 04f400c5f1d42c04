"""bench/sqlite_vec_bench.py measures all three ways on any embedded store, twice in a row."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from engram.memory.save import save_observation
from engram.store.db import Store

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "sqlite_vec_bench.py"


def test_every_way_is_measured_with_and_without_a_project_filter(tmp_path: Path) -> None:
    with Store.open(tmp_path, env={"ENGRAM_SEARCH": "hybrid"}) as store:
        for i in range(60):
            save_observation(
                store, title=f"note {i}", content=f"worker {i} leaked file handles",
                project="shop" if i % 3 else "blog", surface_conflicts=False,
            )  # fmt: skip
    argv = [sys.executable, str(SCRIPT), "--data-dir", str(tmp_path), "--queries", "3"]
    for _ in range(2):  # the second run finds the index file and the scratch table anew
        result = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
        assert result.returncode == 0, result.stdout + result.stderr
        assert re.search(
            r"^# sqlite-vec vs the int8 file scan: 60 vectors, .*load ", result.stdout, re.M
        )
        for way in ("engram", "vec_distance_cosine", "vec0"):
            assert re.search(
                rf"^\| [^|]*{way}[^|]* \| [\d.]+ / [\d.]+ \| [\d.]+ / [\d.]+ \|$",
                result.stdout,
                re.M,
            ), (way, result.stdout)
