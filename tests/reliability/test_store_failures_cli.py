"""SQLite failures reach the CLI as one line with a remedy: huge ids, a held lock.

Found by the independent error sweep: ``engram show 2**70`` and every write facing a lock held
past the busy timeout printed a Python traceback.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from engram.testing import Sandbox
from tests.reliability.conftest import Run

HUGE = str(2**70)
JUST_OVER = str(2**63)

HUGE_NUMBER_COMMANDS = [
    ["show", HUGE],
    ["pin", JUST_OVER],
    ["unpin", HUGE],
    ["update", HUGE, "--title", "changed"],
    ["timeline", JUST_OVER],
    ["delete", HUGE],
    ["delete", HUGE, "--hard"],
    ["conflicts", "list", "--offset", HUGE],
    ["save-session", "--query-level", HUGE],
    ["projects", "rescue-ownership", "--project", "p", "--prompt", HUGE],
    ["projects", "rescue-ownership", "--project", "p", "--observation", HUGE],
]


def _assert_one_line_error(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("warning:")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and " — " in lines[0]


def _snapshot(engram: Run) -> object:
    shown = engram("list", "--all", "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


@pytest.mark.parametrize("args", HUGE_NUMBER_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_a_number_too_large_for_sqlite_is_one_line(engram: Run, args: list[str]) -> None:
    assert engram("save", "Keep me", "unchanged").returncode == 0
    before = _snapshot(engram)
    result = engram(*args)
    _assert_one_line_error(result)
    assert "too large" in result.stderr
    assert _snapshot(engram) == before


LOCKER = textwrap.dedent(
    """
    import sqlite3, sys, time
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    print("locked", flush=True)
    sys.stdin.read()
    """
)


def test_a_lock_held_past_the_busy_timeout_is_one_line(engram: Run, sandbox: Sandbox) -> None:
    assert engram("save", "Keep me", "unchanged").returncode == 0
    database = sandbox.data_dir / "engram.db"
    locker = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(database)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert locker.stdout is not None and locker.stdout.readline() == "locked\n"
        result = engram("pin", "1")
    finally:
        locker.communicate("")
    _assert_one_line_error(result)
    assert "lock" in result.stderr
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT COUNT(*) FROM observations WHERE pinned = 1").fetchone() == (0,)
