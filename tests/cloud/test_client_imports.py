"""The base ``engram`` CLI does not import psycopg, Starlette or uvicorn unless a cloud server
command runs."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
from engram.cli.app import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
heavy = sorted(m for m in ('psycopg', 'psycopg_pool', 'starlette', 'uvicorn') if m in sys.modules)
print('HEAVY:' + ','.join(heavy))
"""


def _loaded(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", CHECK, *args], capture_output=True, text=True, timeout=60
    )
    marker = [line for line in result.stdout.splitlines() if line.startswith("HEAVY:")]
    assert marker, result.stderr
    return marker[-1].removeprefix("HEAVY:")


def test_cli_start_up_and_cloud_help_stay_light() -> None:
    assert _loaded("--help") == ""
    assert _loaded("cloud", "--help") == ""
    assert _loaded("cloud", "bootstrap", "admin", "--help") == ""
