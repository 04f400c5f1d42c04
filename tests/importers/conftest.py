"""``cli(*args)``: the ``engram`` entry point run in this process against the sandbox."""

from __future__ import annotations

import contextlib
import io
import subprocess
from collections.abc import Callable

import pytest

from engram.cli.app import main
from engram.testing import Sandbox

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(sandbox: Sandbox) -> Run:
    """Run ``engram.cli.app.main`` with captured stdout/stderr; returns a finished process."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
        return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())

    return run
