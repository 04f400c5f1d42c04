"""The registered server command: bare name on PATH, else a form that needs no shell PATH."""

from __future__ import annotations

import stat
from pathlib import Path

from engram.hosts.command import is_versioned_path, resolve_server_command
from engram.testing import Sandbox


def make_script(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_engram_mcp_on_path_is_registered_by_name(sandbox: Sandbox) -> None:
    bin_dir = sandbox.root / "bin"
    make_script(bin_dir, "engram-mcp")
    command = resolve_server_command({"PATH": str(bin_dir)}, version="1.2.3")
    assert command.argv == ["engram-mcp"]
    assert (command.form, command.version) == ("path", "1.2.3")


def test_stable_tool_venv_is_registered_by_absolute_path(sandbox: Sandbox) -> None:
    scripts = sandbox.home / ".local/share/uv/tools/engram-keeper/bin"
    own = make_script(scripts, "engram-mcp")
    command = resolve_server_command({"PATH": ""}, version="1.2.3", scripts_dir=scripts)
    assert command.argv == [str(own)]
    assert command.form == "absolute"


def test_versioned_install_falls_back_to_a_pinned_uvx(sandbox: Sandbox) -> None:
    scripts = sandbox.root / "Cellar/engram-keeper/1.2.3/libexec/bin"
    make_script(scripts, "engram-mcp")
    uvx = make_script(sandbox.root / "launchers", "uvx")
    env = {"PATH": str(uvx.parent)}
    command = resolve_server_command(env, version="1.2.3", scripts_dir=scripts)
    assert command.argv == [str(uvx), "--from", "engram-keeper==1.2.3", "engram-mcp"]
    assert command.form == "uvx"


def test_pipx_is_used_when_uvx_is_missing(sandbox: Sandbox) -> None:
    pipx = make_script(sandbox.root / "launchers", "pipx")
    scripts = sandbox.root / "nowhere"
    command = resolve_server_command(
        {"PATH": str(pipx.parent)}, version="2.0.0", scripts_dir=scripts
    )
    assert command.argv == [str(pipx), "run", "--spec", "engram-keeper==2.0.0", "engram-mcp"]


def test_versioned_paths_are_recognised() -> None:
    assert is_versioned_path(Path("/opt/Cellar/engram/0.4.1/bin/engram-mcp"), "0.4.1")
    assert is_versioned_path(Path("/h/.local/pipx/venvs/engram-keeper-0.4.1/bin/x"), "0.4.1")
    assert is_versioned_path(Path("/h/.cache/uv/archive-v0/abc/bin/engram-mcp"), "0.4.1")
    assert not is_versioned_path(Path("/h/.local/pipx/venvs/engram-keeper/bin/x"), "0.4.1")
    assert not is_versioned_path(Path("/h/.local/share/uv/tools/engram-keeper/bin/x"), "0.4.1")
