"""The cloud client tells the truth: a wrong or missing token is an error even with nothing to
push, your own pushes are never "to pull", and `engram sync --cloud` takes the current
directory's project like `engram sync`."""

from __future__ import annotations

import subprocess
from pathlib import Path

from engram.testing import Sandbox
from tests.cloud.conftest import SYNC_TOKEN, CloudServer
from tests.cloud.laptops import Laptop


def _laptop(sandbox: Sandbox, cloud: CloudServer, root: Path, token: str) -> Laptop:
    laptop = Laptop(root, sandbox.env(ENGRAM_CLOUD_TOKEN=token))
    laptop.ok("cloud", "config", "--server", cloud.url)
    laptop.ok("cloud", "enroll", "team")
    return laptop


def test_a_wrong_or_missing_token_fails_even_with_nothing_to_push(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path
) -> None:
    for token in ("not-the-token-" + "x" * 30, ""):
        laptop = _laptop(sandbox, cloud, tmp_path / (token[:3] or "none"), token)
        done = laptop.run("sync", "--cloud", "--project", "team")
        assert done.returncode == 1, done.stdout
        assert done.stderr.startswith("error: auth_required: "), done.stderr
        assert "pushed" not in done.stdout


def test_own_pushes_are_not_counted_as_to_pull(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path
) -> None:
    a = _laptop(sandbox, cloud, tmp_path / "a", SYNC_TOKEN)
    b = _laptop(sandbox, cloud, tmp_path / "b", SYNC_TOKEN)
    a.ok("save", "first", "from a", "--project", "team")
    a.ok("save", "second", "from a", "--project", "team")
    assert "pushed 3 mutations" in a.ok("sync", "--cloud", "--project", "team")  # + the session
    status = a.ok("sync", "--cloud", "--status", "--project", "team")
    assert "0 mutations not pulled yet" in status, status
    # Interleaved with another replica's push, only the other's count.
    b.ok("save", "third", "from b", "--project", "team")
    b.ok("sync", "--cloud", "--project", "team")
    a.ok("save", "fourth", "from a", "--project", "team")
    assert "pushed 1 mutation " in a.ok("sync", "--cloud", "--project", "team")  # one, singular
    status = a.ok("sync", "--cloud", "--status", "--project", "team")
    assert "2 mutations not pulled yet" in status, status  # b's note and b's session
    assert "2 to pull" in a.ok("cloud", "status")


def test_sync_cloud_defaults_to_the_current_project(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path
) -> None:
    laptop = _laptop(sandbox, cloud, tmp_path / "a", SYNC_TOKEN)
    work = laptop.root / "work"
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=work, check=True)
    laptop.ok("save", "a note", "in the repo", "--project", "work")
    laptop.ok("cloud", "enroll", "work")
    done = laptop.run("sync", "--cloud")
    assert done.returncode == 0, done.stderr
    assert "pushed 2 mutations " in done.stdout, done.stdout  # the note and its session
    explicit = laptop.run("sync", "--cloud", "--project", "team")
    assert explicit.returncode == 0, explicit.stderr
