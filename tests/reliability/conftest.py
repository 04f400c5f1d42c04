"""Fixtures for the reliability suite: the real ``engram`` console script, and another user."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engram.testing import Sandbox

# The cloud suite's real Postgres (one per xdist worker) and `engram cloud serve` processes.
from tests.cloud.conftest import cloud, database_url, postgres, start_server  # noqa: F401

ENGRAM = Path(sys.executable).with_name("engram")

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def engram(sandbox: Sandbox) -> Run:
    """Run the console script in a subprocess against the sandbox (text mode, 120 s cap)."""

    def run(
        *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: str = ""
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ENGRAM), *args],
            capture_output=True,
            text=True,
            input=stdin,
            env=sandbox.env(**(env or {})),
            cwd=cwd or sandbox.workspace,
            timeout=120,
        )

    return run


@pytest.fixture
def other_user() -> tuple[int, int]:
    """uid/gid of a user who is not us (``nobody``); only root can hand files to them."""
    if os.geteuid() != 0:
        pytest.skip("only root can create files owned by another user")
    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


def assert_one_line_error(proc: subprocess.CompletedProcess[str], code: str = "") -> None:
    """A failed command that said what went wrong on one line, without a traceback."""
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error:"), lines
    if code:
        assert code in lines[0] or code.split(".")[-1].replace("_", " ") in lines[0], lines[0]
