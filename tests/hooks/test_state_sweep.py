"""Session state files a host never closed are swept after a week, at most once an hour."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from engram.hooks.state import SWEEP_EVERY_SECONDS, sweep_stale
from engram.testing import Sandbox

WEEK = 7 * 24 * 3600


def _state_file(folder: Path, name: str, age: float, now: float) -> Path:
    path = folder / f"{name}.json"
    path.write_text('{"shown_upto": 1}', encoding="utf-8")
    os.utime(path, (now - age, now - age))
    return path


def test_a_sweep_removes_week_old_state_and_then_rests_an_hour(tmp_path: Path) -> None:
    now = time.time()
    old = _state_file(tmp_path, "old", WEEK + 60, now)
    fresh = _state_file(tmp_path, "fresh", 60, now)
    assert sweep_stale(str(tmp_path), now=now) == 1
    assert not old.exists() and fresh.exists()
    later = _state_file(tmp_path, "later", WEEK + 60, now)
    assert sweep_stale(str(tmp_path), now=now + SWEEP_EVERY_SECONDS - 5) == 0  # resting
    assert later.exists()
    assert sweep_stale(str(tmp_path), now=now + SWEEP_EVERY_SECONDS + 5) == 1
    assert not later.exists() and fresh.exists()


def test_a_missing_folder_is_nothing_to_sweep(tmp_path: Path) -> None:
    assert sweep_stale(str(tmp_path / "absent")) == 0


def test_session_start_sweeps_the_hosts_abandoned_sessions(sandbox: Sandbox) -> None:
    folder = sandbox.data_dir / "hooks" / "claude"
    folder.mkdir(parents=True)
    sandbox.data_dir.chmod(0o700)  # as Engram makes it (else the hook says it fixed it)
    abandoned = _state_file(folder, "abandoned", WEEK + 60, time.time())
    event = {
        "hook_event_name": "SessionStart",
        "source": "startup",
        "session_id": "s2",
        "cwd": str(sandbox.workspace),
    }
    result = subprocess.run(
        [sys.executable, "-m", "engram.cli.entry", "hook", "claude"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert not abandoned.exists()
    assert (folder / "s2.json").exists()
