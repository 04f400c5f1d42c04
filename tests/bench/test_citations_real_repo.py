"""bench/citations_real_repo.py runs with no argument on this checkout and judges every status."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

ROOT = Path(__file__).resolve().parents[2]


def test_the_checkout_itself_is_the_default_repository(sandbox: Sandbox) -> None:
    before = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True
    ).stdout
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "citations_real_repo.py"), "--memories", "45"],
        capture_output=True, text=True, env=sandbox.env(), timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "memories: 45, with a code status: 45" in result.stdout
    assert re.search(
        r"^stale +precision [\d.]+ +recall [\d.]+ +\(30 expected\)$", result.stdout, re.M
    )
    assert re.search(
        r"^changed +precision [\d.]+ +recall [\d.]+ +\(15 expected\)$", result.stdout, re.M
    )
    assert "load average: " in result.stdout
    after = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True
    ).stdout
    assert after == before  # the checkout is cloned, never written
