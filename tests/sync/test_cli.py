"""``engram sync`` as a user meets it: messages, files it writes, usage and folder errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox

ENGRAM = [sys.executable, "-m", "engram.cli.entry"]


def _run(box: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENGRAM, *args], cwd=box.workspace, env=box.env(), capture_output=True, text=True
    )


def test_sync_writes_one_chunk_then_nothing_new(sandbox: Sandbox) -> None:
    assert _run(sandbox, "save", "cache policy", "warm it").returncode == 0
    first = _run(sandbox, "sync")
    assert first.returncode == 0 and "wrote chunk" in first.stdout
    folder = sandbox.workspace / ".engram"
    assert len(list((folder / "chunks").glob("*.jsonl.gz"))) == 1
    assert "manifest.json merge=union" in (folder / ".gitattributes").read_text()
    assert "*.db" in (folder / ".gitignore").read_text()
    assert json.loads((folder / "manifest.json").read_text())["engram_manifest"] == 1

    again = _run(sandbox, "sync")
    assert again.returncode == 0 and "nothing new to sync" in again.stdout
    status = json.loads(_run(sandbox, "sync", "--status", "--json").stdout)
    assert status["pending_mutations"] == 0 and status["repository_chunks"] == 1

    _run(sandbox, "save", "second", "more")
    status = json.loads(_run(sandbox, "sync", "--status", "--json").stdout)
    assert status["pending_mutations"] == 1
    assert _run(sandbox, "sync").returncode == 0
    assert len(list((folder / "chunks").glob("*.jsonl.gz"))) == 2


def test_usage_and_folder_errors_are_one_line(sandbox: Sandbox) -> None:
    both = _run(sandbox, "sync", "--import", "--status")
    assert both.returncode == 2 and "only one of" in both.stderr
    _run(sandbox, "save", "x", "y")
    Path(sandbox.workspace / ".engram").mkdir()
    (sandbox.workspace / ".engram" / "chunks").write_text("not a folder")
    for args in (["sync"], ["sync", "--import"]):
        done = _run(sandbox, *args)
        assert done.returncode == 1
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
        assert ".engram/chunks" in done.stderr
