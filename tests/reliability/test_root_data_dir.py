"""``ENGRAM_DATA_DIR=/`` is refused by every command, so Engram never writes into ``/`` nor
makes it private (that broke every other user of the machine)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram.testing import Sandbox

ENGRAM = Path(sys.executable).with_name("engram")


@pytest.mark.parametrize(
    "args",
    [
        ("save", "a title", "some content", "--project", "p"),
        ("stats",),
        ("link", "claude"),
        ("doctor",),
    ],
)
def test_root_as_data_dir_is_refused_and_root_is_untouched(
    sandbox: Sandbox, args: tuple[str, ...]
) -> None:
    before = os.stat("/").st_mode
    listing = set(os.listdir("/"))
    done = subprocess.run(
        [str(ENGRAM), *args],
        capture_output=True,
        text=True,
        env=sandbox.env(ENGRAM_DATA_DIR="/"),
        cwd=sandbox.workspace,
        timeout=120,
    )
    assert os.stat("/").st_mode == before
    assert set(os.listdir("/")) - listing == set()
    assert "Traceback" not in done.stderr
    if args[0] != "doctor":
        assert done.returncode != 0
        assert "root of the filesystem" in done.stderr
