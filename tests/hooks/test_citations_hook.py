"""The SessionStart pack never serves a stale memory as current: through the real
``engram hook claude`` in a real git repository, a memory whose cited file was deleted is
listed under "Stale Observations" with its reason, not among the recent ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engram.testing import Sandbox
from tests.memory.citation_repo import commit, git, make_repo

ENGRAM = str(Path(sys.executable).with_name("engram"))


def _run(sandbox: Sandbox, repo: Path, *args: str, stdin: str = "") -> str:
    done = subprocess.run(
        [ENGRAM, *args],
        cwd=repo,
        env=sandbox.env(ENGRAM_PROJECT="shop"),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def test_session_start_lists_stale_memories_apart(sandbox: Sandbox) -> None:
    repo = make_repo(sandbox.workspace)
    _run(sandbox, repo, "save", "Queue rule", "jobs go through `Enqueue` in svc/queue.go")
    _run(sandbox, repo, "save", "Settings rule", "read by app/settings.py:load_settings")
    git(repo, "rm", "-q", "svc/queue.go")
    sha = commit(repo, "drop the queue")
    event = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s1"}
    out = _run(sandbox, repo, "hook", "claude", stdin=json.dumps({**event, "cwd": str(repo)}))
    pack = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    recent, _, stale = pack.partition("### Stale Observations")
    assert "Settings rule" in recent and "Queue rule" not in recent
    assert f"Queue rule** (#1) — stale: svc/queue.go deleted in {sha}" in stale
