"""End to end with real git: three clones, each with its own home and data dir, write, edit and
delete memories, sync, commit, pull (real merges, no conflicts), import — and converge."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engram.testing import Sandbox
from tests.sync.replica import SNAPSHOT

ENGRAM = [sys.executable, "-m", "engram.cli.entry"]


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(cwd),
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stdout}{done.stderr}"
    return done.stdout


class Clone:
    """One developer: a clone and a sandboxed home with its own data dir."""

    def __init__(self, root: Path, name: str, origin: Path) -> None:
        self.box = Sandbox(root / name)
        self.path = self.box.workspace / "repo"
        _git(self.box.workspace, "clone", "-q", str(origin), "repo")
        _git(self.path, "config", "pull.rebase", "false")

    def engram(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*ENGRAM, *args], cwd=self.path, env=self.box.env(), capture_output=True, text=True
        )

    def ok(self, *args: str) -> str:
        done = self.engram(*args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def commit_and_pull(self, message: str) -> None:
        _git(self.path, "add", "-A")
        if _git(self.path, "status", "--porcelain"):
            _git(self.path, "commit", "-q", "-m", message)
        _git(self.path, "pull", "-q", "--no-edit", "origin", "main")

    def push(self) -> None:
        _git(self.path, "push", "-q", "origin", "HEAD:main")

    def local_id(self, title: str) -> int:
        with sqlite3.connect(self.box.data_dir / "engram.db") as conn:
            row = conn.execute("SELECT id FROM observations WHERE title = ?", (title,)).fetchone()
        return int(row[0])

    def snapshot(self) -> dict[str, list[tuple[object, ...]]]:
        with sqlite3.connect(self.box.data_dir / "engram.db") as conn:
            return {
                table: [tuple(r) for r in conn.execute(f"SELECT {c} FROM {table} ORDER BY {k}")]
                for table, (k, c) in SNAPSHOT.items()
            }


@pytest.fixture
def clones(tmp_path: Path) -> list[Clone]:
    origin = tmp_path / "origin.git"
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = tmp_path / "seed"
    _git(tmp_path, "clone", "-q", str(origin), "seed")
    (seed / "README.md").write_text("team repo\n")
    _git(seed, "add", "README.md")
    _git(seed, "commit", "-q", "-m", "init")
    _git(seed, "push", "-q", "origin", "HEAD:main")
    return [Clone(tmp_path, name, origin) for name in ("alice", "bob", "carol")]


def test_three_clones_converge_through_git(clones: list[Clone]) -> None:
    alice, bob, carol = clones
    alice.ok("save", "shared decision", "use sqlite v1", "--topic", "arch/db")
    alice.ok("save", "doomed note", "remove me later")
    alice.ok("save", "soft note", "hide me later")
    alice.ok("sync")
    alice.commit_and_pull("alice sync 1")
    alice.push()

    bob.commit_and_pull("nothing yet")
    bob.ok("sync", "--import")
    bob.ok("save", "bob finding", "the cache is cold <private>hunter2</private>")
    bob.ok("save", "shared decision", "use postgres (bob)", "--topic", "arch/db")
    bob.ok("sync")
    bob.commit_and_pull("bob sync")
    bob.push()

    carol.commit_and_pull("nothing yet")
    carol.ok("sync", "--import")
    carol.ok("delete", str(carol.local_id("doomed note")), "--hard")
    carol.ok("save", "carol note", "flaky test in ci")
    carol.ok("sync")
    _git(carol.path, "add", "-A")
    _git(carol.path, "commit", "-q", "-m", "carol sync, not pushed yet")

    # Alice edits the shared decision concurrently (she has not seen Bob's edit).
    alice.ok("save", "shared decision", "use duckdb (alice)", "--topic", "arch/db")
    alice.ok("delete", str(alice.local_id("soft note")))
    alice.ok("sync")
    alice.commit_and_pull("alice sync 2")  # a real merge: both sides added chunks
    alice.ok("sync", "--import")
    alice.push()

    carol.commit_and_pull("carol merge")
    carol.ok("sync", "--import")
    carol.push()
    for clone in (alice, bob, carol):
        clone.commit_and_pull("final pull")
        clone.ok("sync", "--import")

    for clone in clones:
        manifest = clone.path / ".engram" / "manifest.json"
        assert "<<<<<<<" not in manifest.read_text()
        assert len(json.loads(manifest.read_text())["chunks"]) == 5  # format line + 4 chunks
        assert not _git(clone.path, "status", "--porcelain")

    snapshots = [clone.snapshot() for clone in clones]
    assert snapshots[0] == snapshots[1] == snapshots[2]
    observations = {row[3]: row for row in snapshots[0]["observations"]}
    assert "doomed note" not in observations
    assert observations["soft note"][14] is not None  # soft deletion travelled
    assert "hunter2" not in json.dumps(snapshots[0])
    assert {"shared decision", "bob finding", "carol note"} <= set(observations)

    # The losing version of the concurrent edit is kept, not dropped.
    for clone in clones:
        status = json.loads(clone.ok("sync", "--status", "--json"))
        assert status["repository_chunks_not_applied"] == 0
    assert json.loads(alice.ok("sync", "--status", "--json"))["revisions_kept"] >= 1
    kept = json.loads(alice.ok("sync", "--revisions", "--json"))["revisions"]
    winner = observations["shared decision"][4]
    losers = {
        r["payload"]["content"] for r in kept if r["payload"].get("title") == "shared decision"
    }
    assert losers and winner not in losers
    assert losers <= {"use sqlite v1", "use postgres (bob)", "use duckdb (alice)"}

    for clone in clones:
        again = json.loads(clone.ok("sync", "--import", "--json"))
        assert again["chunks_applied"] == 0
        assert clone.snapshot() == snapshots[0]
