"""Failures leave every file as it was: read-only folders and files, a concurrent link.

Permissions mean nothing to root, so when the suite runs as root these tests run `engram` as
the unprivileged user ``nobody`` (``setpriv``) over a sandbox that user owns.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from engram.edit import read_document
from engram.edit.plan import DocFormat
from engram.testing import Sandbox
from tests.conftest import use_every_host

REPO = Path(__file__).resolve().parents[2]
NOBODY = 65534


@dataclass
class Unprivileged:
    """A sandbox owned by the user that runs ``engram`` (``nobody`` when the suite is root)."""

    box: Sandbox

    def engram(self, *args: str) -> subprocess.Popen[str]:
        drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        argv = [*(drop if os.geteuid() == 0 else []), sys.executable, "-m", "engram.cli.app", *args]
        path = f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin"
        env = self.box.env(PATH=path, PYTHONPATH=str(REPO))
        return subprocess.Popen(
            argv, cwd=self.box.workspace, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip

    def run(self, *args: str) -> tuple[int, str]:
        proc = self.engram(*args)
        out, err = proc.communicate(timeout=120)
        return proc.returncode, out + err

    def own(self) -> None:
        """Give every file of the sandbox to the user engram runs as."""
        if os.geteuid() == 0:
            for path in [self.box.root, *self.box.root.rglob("*")]:
                os.chown(path, NOBODY, NOBODY, follow_symlinks=False)


@pytest.fixture
def user(sandbox: Sandbox) -> Iterator[Unprivileged]:
    """A sandbox outside pytest's private tmp dir, readable by ``nobody``."""
    root = Path(tempfile.mkdtemp(prefix="engram-perm-"))
    root.chmod(0o755)
    try:
        yield Unprivileged(Sandbox(root))
    finally:
        for path in [root, *root.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(root)


def files(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_read_only_folder_is_an_error_and_nothing_changes(user: Unprivileged) -> None:
    config = user.box.workspace / ".cursor/mcp.json"
    config.parent.mkdir()
    config.write_text('{\n  "mcpServers": {"x": {"command": "x"}}\n}\n')
    user.own()
    config.parent.chmod(0o555)
    before = files(user.box.workspace)
    code, out = user.run("link", "cursor")
    assert code == 1, out
    assert out.startswith("error: ") and out.count("\n") == 1
    assert files(user.box.workspace) == before


def test_a_read_only_file_is_an_error_and_nothing_changes(user: Unprivileged) -> None:
    config = user.box.workspace / ".mcp.json"
    config.write_text('{"mcpServers": {}}\n')
    user.own()
    config.chmod(0o444)
    code, out = user.run("link", "claude")
    assert code == 1, out
    assert "error: " in out and ".mcp.json" in out
    assert config.read_text() == '{"mcpServers": {}}\n'


def test_concurrent_links_never_leave_a_half_written_file(user: Unprivileged) -> None:
    settings = user.box.workspace / ".gemini/settings.json"
    settings.parent.mkdir()
    original = '{\n  // mine\n  "theme": "dark"\n}\n'
    settings.write_text(original)
    use_every_host(user.box.home, user.box.workspace)
    user.own()
    procs = [user.engram("link", "all") for _ in range(4)]
    results = [(p.wait(timeout=180), p.communicate()[1]) for p in procs]
    assert any(code == 0 for code, _ in results), results
    for code, err in results:
        assert code == 0 or "error: " in err  # a loser says why, in one line
    assert settings.read_text().startswith('{\n  // mine\n  "theme": "dark",\n')
    document = read_document(settings, DocFormat.JSONC)
    assert isinstance(document, dict) and list(document["mcpServers"]) == ["engram"]
    for event, groups in document.get("hooks", {}).items():
        assert len(groups) == 1, f"{event} hook added {len(groups)} times"
    code, out = user.run("unlink", "all")
    assert code == 0, out
    assert settings.read_text() == original
    assert not (user.box.workspace / ".mcp.json").exists()
