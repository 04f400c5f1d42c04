"""Every command's --help answers without opening the store or creating the data dir."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from engram.testing import Sandbox

Run = Callable[..., subprocess.CompletedProcess[str]]

COMMANDS = [
    ["save"],
    ["search"],
    ["context"],
    ["timeline"],
    ["stats"],
    ["delete"],
    ["export"],
    ["import"],
    ["init"],
    ["projects"],
    ["projects", "list"],
    ["projects", "merge"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_never_touches_the_store(sandbox: Sandbox, engram: Run, command: list[str]) -> None:
    result = engram(*command, "--help")
    assert result.returncode == 0, result.stderr
    assert "Usage:" in result.stdout
    assert not sandbox.data_dir.exists()


def test_building_the_cli_imports_neither_store_nor_memory(sandbox: Sandbox) -> None:
    probe = (
        "import sys; from engram.cli.app import build_app; build_app();"
        "print(sorted(m for m in sys.modules if m.startswith(('engram.store', 'engram.memory',"
        " 'pydantic', 'sqlite3'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=sandbox.env(), check=True
    )
    assert result.stdout.strip() == "[]"
