"""A command that needs a missing extra says so in one line, with the install command that fits
the way Engram was installed (uv tool, pipx, a virtualenv), keeping the extras already there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engram.cli import extras
from engram.testing import Sandbox


def run_without(sandbox: Sandbox, module: str, *argv: str) -> subprocess.CompletedProcess[str]:
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "from engram.cli.entry import main\n"
        f"sys.exit(main({list(argv)!r}))"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=sandbox.env(ENGRAM_DATABASE_URL="postgresql://engram@127.0.0.1:1/x"),
        cwd=sandbox.workspace,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("module", "argv", "extra"),
    [
        ("psycopg", ["cloud", "serve"], "cloud"),
        ("psycopg", ["cloud", "bootstrap", "admin", "--username", "a"], "cloud"),
        ("textual", ["tui", "--all"], "tui"),
    ],
)
def test_missing_extra_is_one_line_with_the_fitting_command(
    sandbox: Sandbox, module: str, argv: list[str], extra: str
) -> None:
    done = run_without(sandbox, module, *argv)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert f"needs the '{extra}' extra, which is not installed — " in line
    remedy = line.split(" — ", 1)[1]
    # This test runs in the dev virtualenv: its installer (pip, or uv for a uv-made venv, which
    # has no pip), the clone it was installed from.
    from engram.installation import _installer

    pip = (
        f"uv pip install --python {sys.executable}"
        if _installer() == "uv"
        else (f"{sys.executable} -m pip install")
    )
    assert remedy.startswith(pip), remedy
    assert extra in remedy.rsplit("[", 1)[1]


def test_uv_tool_and_pipx_installs_get_their_own_command(tmp_path: Path) -> None:
    uv = tmp_path / "uv-tool"
    uv.mkdir()
    (uv / "uv-receipt.toml").write_text("[tool]\n")
    pipx = tmp_path / "pipx-venv"
    pipx.mkdir()
    (pipx / "pipx_metadata.json").write_text("{}")
    assert extras.install_method(str(uv)) == "uv-tool"
    assert extras.install_method(str(pipx)) == "pipx"
    assert extras.install_command("cloud", str(uv)).startswith(
        "uv tool install --compile-bytecode '"
    )
    assert extras.install_command("cloud", str(pipx)).startswith("pipx install --force '")
    assert "cloud" in extras.install_command("cloud", str(uv)).rsplit("[", 1)[1]


def test_modules_map_to_their_extra() -> None:
    assert extras.extra_of("psycopg.pq") == "cloud"
    assert extras.extra_of("textual.app") == "tui"
    assert extras.extra_of("yaml") is None
