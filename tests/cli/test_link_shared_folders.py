"""Folders Engram creates for files two hosts share are gone after the last unlink.

Gemini and Antigravity both write ``~/.gemini/GEMINI.md``; Codex and Antigravity both write
``~/.agents/skills/...``. Whichever host is unlinked first, the folders Engram created must not
outlive the last file in them.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest

from engram.testing import Sandbox

Run = Callable[..., subprocess.CompletedProcess[str]]


def tree(sandbox: Sandbox) -> set[str]:
    skip = sandbox.data_dir
    return {
        str(p.relative_to(sandbox.root))
        for p in sandbox.root.rglob("*")
        if p != skip and skip not in p.parents
    }


@pytest.mark.parametrize("order", [["gemini", "antigravity"], ["antigravity", "gemini"]])
def test_unlinking_hosts_that_share_files_removes_every_created_folder(
    sandbox: Sandbox, engram: Run, order: list[str]
) -> None:
    before = tree(sandbox)
    for host in order:
        assert engram("link", host, "--global").returncode == 0
    assert (sandbox.home / ".gemini/GEMINI.md").exists()
    for host in order:
        result = engram("unlink", host, "--global")
        assert result.returncode == 0, result.stderr
    assert tree(sandbox) == before


def test_unlink_all_global_leaves_no_folder_behind(
    sandbox: Sandbox, every_host_used: Sandbox, engram: Run
) -> None:
    before = tree(sandbox)
    assert engram("link", "all", "--global").returncode == 0
    result = engram("unlink", "all", "--global")
    assert result.returncode == 0, result.stderr
    assert tree(sandbox) == before


def test_a_user_file_keeps_its_folder(
    sandbox: Sandbox, every_host_used: Sandbox, engram: Run
) -> None:
    assert engram("link", "all", "--global").returncode == 0
    mine = sandbox.home / ".gemini/notes.txt"
    mine.write_text("mine\n")
    assert engram("unlink", "all", "--global").returncode == 0
    assert mine.read_text() == "mine\n"
    # notes.txt, and ~/.gemini/antigravity, which was there before (Antigravity is used here)
    assert sorted(p.name for p in (sandbox.home / ".gemini").iterdir()) == [
        "antigravity",
        "notes.txt",
    ]
