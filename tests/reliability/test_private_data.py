"""Private by default (issue 10, point 6): the data dir is 0700, state and exports 0600, an
unsafe data dir is refused on one line, and a read command creates nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

from engram.testing import Sandbox
from tests.reliability.conftest import Run, assert_one_line_error


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_data_dir_made_by_save_or_by_link_is_private(sandbox: Sandbox, engram: Run) -> None:
    saved = engram("save", "A title", "Some content", "--project", "demo")
    assert saved.returncode == 0, saved.stderr
    assert _mode(sandbox.data_dir) == 0o700
    other = sandbox.root / "link-data"
    linked = engram("link", "claude", env={"ENGRAM_DATA_DIR": str(other)})
    assert linked.returncode == 0, linked.stderr
    assert _mode(other) == 0o700
    assert _mode(other / "links.json") == 0o600


def test_an_open_data_dir_is_tightened_with_a_notice(sandbox: Sandbox, engram: Run) -> None:
    assert engram("save", "A title", "Some content", "--project", "demo").returncode == 0
    sandbox.data_dir.chmod(0o755)
    result = engram("search", "content", "--project", "demo")
    assert result.returncode == 0, result.stderr
    assert _mode(sandbox.data_dir) == 0o700
    notices = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(notices) == 1 and "private" in notices[0]


def test_hook_state_and_exports_are_0600(sandbox: Sandbox, engram: Run) -> None:
    assert engram("save", "A title", "Some content", "--project", "demo").returncode == 0
    event = {
        "hook_event_name": "SessionStart",
        "source": "startup",
        "session_id": "s-1",
        "cwd": str(sandbox.workspace),
    }
    assert engram("hook", "claude", stdin=json.dumps(event)).returncode == 0
    states = list((sandbox.data_dir / "hooks").rglob("*.json"))
    assert states and all(_mode(p) == 0o600 for p in states)
    export = sandbox.root / "backup.json"
    assert engram("export", str(export), "--all").returncode == 0
    assert _mode(export) == 0o600


def test_world_writable_data_dir_is_refused(sandbox: Sandbox, engram: Run) -> None:
    sandbox.data_dir.mkdir(mode=0o700)
    sandbox.data_dir.chmod(0o777)
    for command in (["save", "t", "c", "--project", "demo"], ["stats"]):
        result = engram(*command)
        assert_one_line_error(result)
        assert "every user" in result.stderr
    assert not (sandbox.data_dir / "engram.db").exists()


def test_symlinked_database_is_refused(sandbox: Sandbox, engram: Run) -> None:
    sandbox.data_dir.mkdir(mode=0o700)
    elsewhere = sandbox.root / "theirs.db"
    elsewhere.write_bytes(b"")
    (sandbox.data_dir / "engram.db").symlink_to(elsewhere)
    result = engram("save", "t", "c", "--project", "demo")
    assert_one_line_error(result)
    assert "symlink" in result.stderr
    assert elsewhere.read_bytes() == b""


def test_another_users_data_dir_is_refused(
    sandbox: Sandbox, engram: Run, other_user: tuple[int, int]
) -> None:
    sandbox.data_dir.mkdir(mode=0o700)
    os.chown(sandbox.data_dir, *other_user)
    result = engram("save", "t", "c", "--project", "demo")
    assert_one_line_error(result)
    assert "another user" in result.stderr


def test_read_commands_create_no_store(sandbox: Sandbox, engram: Run) -> None:
    shared = sandbox.root / "shared-folder"
    shared.mkdir()
    (shared / "notes.txt").write_text("not Engram's\n")
    shared.chmod(0o755)
    fresh = sandbox.root / "never-used"
    for folder in (shared, fresh):
        env = {"ENGRAM_DATA_DIR": str(folder)}
        for command in (["stats"], ["search", "x"], ["context"], ["projects", "list"]):
            result = engram(*command, env=env)
            assert "Traceback" not in result.stderr, result.stderr
        assert not (folder / "engram.db").exists()
    assert not fresh.exists()
    assert _mode(shared) == 0o755
