"""A CLI whose stdout cannot be written (a full disk) or whose stdin is closed says so in one
line and exits 1.

Found by the independent error sweep: ``engram export > /dev/full`` and ``engram list --json >
/dev/full`` printed an OSError traceback; ``engram save T - 0<&-`` an AttributeError one.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engram.testing import Sandbox
from tests.reliability.conftest import ENGRAM, Run

FULL = Path("/dev/full")


def _one_error_line(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if not line.startswith("warning:")]


@pytest.mark.parametrize("args", [["export"], ["list", "--json"]], ids=lambda a: a[0])
def test_stdout_on_a_full_disk_is_one_line(engram: Run, sandbox: Sandbox, args: list[str]) -> None:
    assert engram("save", "Keep me", "unchanged").returncode == 0
    with FULL.open("w") as full:
        result = subprocess.run(
            [str(ENGRAM), *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=sandbox.env(),
            cwd=sandbox.workspace,
            timeout=120,
        )
    assert result.returncode == 1
    lines = _one_error_line(result.stderr)
    assert len(lines) == 1 and "No space left" in lines[0] and " — " in lines[0], result.stderr


def test_dash_with_stdin_closed_is_one_line(sandbox: Sandbox) -> None:
    result = subprocess.run(
        [str(ENGRAM), "save", "Title", "-"],
        stdin=None,
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=120,
        preexec_fn=lambda: os.close(0),
    )
    assert result.returncode == 1
    lines = _one_error_line(result.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: ") and "stdin" in lines[0]
