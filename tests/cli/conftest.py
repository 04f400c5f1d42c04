"""Two ways to run the CLI against the sandbox, with the same call shape and result type.

- ``engram(*args, cwd=None, env=None)`` runs the real ``engram`` console script in a subprocess
  (end-to-end: what a user runs). Each call costs a Python start-up, so journeys use it.
- ``cli(*args, cwd=None, env=None)`` runs the same entry point (``engram.cli.app.main``)
  in-process, for the many small behaviour checks.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engram.cli.app import main
from engram.testing import Sandbox

ENGRAM = Path(sys.executable).with_name("engram")

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def engram(sandbox: Sandbox) -> Run:
    """Run the console script in a subprocess; returns the finished process (text mode)."""

    def run(
        *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ENGRAM), *args],
            capture_output=True,
            text=True,
            env=sandbox.env(**(env or {})),
            cwd=cwd or sandbox.workspace,
            timeout=120,
        )

    return run


@pytest.fixture
def cli(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Run:
    """Run ``engram.cli.app.main`` in this process with captured stdout/stderr."""

    def run(
        *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        out, err = io.StringIO(), io.StringIO()
        with monkeypatch.context() as patch:
            for key, value in (env or {}).items():
                patch.setenv(key, value)
            patch.chdir(cwd or sandbox.workspace)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(list(args))
        assert os.getcwd() == str(sandbox.workspace)
        return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())

    return run
