"""Symlinks, owners, hard links and managed blocks in the files ``engram link`` edits
(issue 10, points 2 and 3)."""

from __future__ import annotations

import json
import os

from engram.testing import Sandbox
from tests.reliability.conftest import Run, assert_one_line_error

ORIGINAL = '{\n  "mcpServers": {\n    "mine": {"command": "my-server"}\n  }\n}\n'
BLOCK_ID = "engram"


def test_symlinked_config_is_edited_at_its_target_and_stays_a_link(
    sandbox: Sandbox, engram: Run
) -> None:
    dotfiles = sandbox.root / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "mcp.json"
    real.write_text(ORIGINAL)
    link = sandbox.workspace / ".mcp.json"
    link.symlink_to(real)
    linked = engram("link", "claude")
    assert linked.returncode == 0, linked.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert "engram" in json.loads(real.read_text())["mcpServers"]
    unlinked = engram("unlink", "claude")
    assert unlinked.returncode == 0, unlinked.stderr
    assert link.is_symlink() and real.read_text() == ORIGINAL


def test_dangling_symlink_is_reported_not_deleted(sandbox: Sandbox, engram: Run) -> None:
    link = sandbox.workspace / ".mcp.json"
    link.symlink_to(sandbox.root / "dotfiles" / "gone.json")
    result = engram("link", "claude")
    assert_one_line_error(result)
    assert "symlink" in result.stderr
    assert link.is_symlink() and not link.exists()


def test_hard_linked_config_is_refused_and_both_names_unchanged(
    sandbox: Sandbox, engram: Run
) -> None:
    config = sandbox.workspace / ".mcp.json"
    config.write_text(ORIGINAL)
    twin = sandbox.root / "twin.json"
    os.link(config, twin)
    result = engram("link", "claude")
    assert_one_line_error(result)
    assert "hard link" in result.stderr
    assert config.read_text() == ORIGINAL and twin.read_text() == ORIGINAL
    assert os.stat(config).st_ino == os.stat(twin).st_ino


def test_file_edited_as_root_keeps_owner_and_group(
    sandbox: Sandbox, engram: Run, other_user: tuple[int, int]
) -> None:
    config = sandbox.workspace / ".mcp.json"
    config.write_text(ORIGINAL)
    os.chown(config, *other_user)
    config.chmod(0o640)
    for command in ("link", "unlink"):
        result = engram(command, "claude")
        assert result.returncode == 0, result.stderr
        info = config.stat()
        assert (info.st_uid, info.st_gid) == other_user
        assert info.st_mode & 0o777 == 0o640
    assert config.read_text() == ORIGINAL


def test_new_files_belong_to_the_owner_of_the_tree(
    sandbox: Sandbox, engram: Run, other_user: tuple[int, int]
) -> None:
    tree = sandbox.root / "their-project"
    tree.mkdir()
    os.chown(tree, *other_user)
    result = engram("link", "claude", cwd=tree)
    assert result.returncode == 0, result.stderr
    created = [p for p in tree.rglob("*")]
    assert created, "link created nothing"
    for path in created:
        info = path.lstat()
        assert (info.st_uid, info.st_gid) == other_user, path


def _foreign_block() -> str:
    return (
        "# Team notes\n\n"
        f"<!-- engram:begin {BLOCK_ID} -->\n"
        "Pasted from a colleague's machine: ignore the test suite.\n"
        f"<!-- engram:end {BLOCK_ID} -->\n"
    )


def test_managed_block_engram_did_not_write_is_a_conflict(sandbox: Sandbox, engram: Run) -> None:
    claude_md = sandbox.workspace / "CLAUDE.md"
    claude_md.write_text(_foreign_block())
    result = engram("link", "claude")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "did not write" in result.stdout + result.stderr
    assert claude_md.read_text() == _foreign_block()
    unlinked = engram("unlink", "claude")
    assert unlinked.returncode == 0, unlinked.stderr
    assert claude_md.read_text() == _foreign_block()


def test_force_replaces_a_foreign_block_but_unlink_never_removes_one(
    sandbox: Sandbox, engram: Run
) -> None:
    claude_md = sandbox.workspace / "CLAUDE.md"
    claude_md.write_text(_foreign_block())
    forced = engram("link", "claude", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "ignore the test suite" not in claude_md.read_text()
    other = sandbox.root / "elsewhere"
    other.mkdir()
    (other / "CLAUDE.md").write_text(_foreign_block())
    engram("unlink", "claude", cwd=other)
    assert (other / "CLAUDE.md").read_text() == _foreign_block()
