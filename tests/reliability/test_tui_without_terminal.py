"""``engram tui`` without a terminal is a one-line error, not a process waiting forever.

Found by the independent error sweep: ``engram tui < /dev/null`` (a script, CI, a pipe) never
returned.
"""

from __future__ import annotations

import subprocess

from engram.testing import Sandbox
from tests.reliability.conftest import ENGRAM


def test_tui_with_no_terminal_says_so_and_exits(sandbox: Sandbox) -> None:
    result = subprocess.run(
        [str(ENGRAM), "tui", "--all"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "error: the terminal UI needs an interactive terminal (stdin or stdout is not one)"
        " — run `engram tui` in a terminal; in scripts use `engram list`, `search` or `context`"
    ]
