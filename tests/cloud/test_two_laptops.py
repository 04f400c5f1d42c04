"""Two data dirs ("two laptops") and one cloud: memories, edits and deletes propagate."""

from __future__ import annotations

import json
from pathlib import Path

from engram.testing import Sandbox
from tests.cloud.conftest import SYNC_TOKEN, CloudServer
from tests.cloud.laptops import Laptop


def _laptops(sandbox: Sandbox, cloud: CloudServer, tmp_path: Path) -> tuple[Laptop, Laptop]:
    base = sandbox.env(ENGRAM_CLOUD_TOKEN=SYNC_TOKEN)
    pair = (Laptop(tmp_path / "a", base), Laptop(tmp_path / "b", base))
    for laptop in pair:
        laptop.ok("cloud", "config", "--server", cloud.url)
        laptop.ok("cloud", "enroll", "team")
    return pair


def test_a_memory_written_on_a_appears_on_b_and_edits_and_deletes_follow(
    sandbox: Sandbox, cloud: CloudServer, tmp_path: Path
) -> None:
    a, b = _laptops(sandbox, cloud, tmp_path)
    a.ok("save", "alpha decision", "use postgres", "--project", "team", "--topic", "db/choice")
    doomed = json.loads(a.ok("save", "beta note", "to be removed", "--project", "team", "--json"))
    a.ok("save", "gamma note", "to be hidden", "--project", "team")
    pushed = a.ok("sync", "--cloud", "--project", "team")
    assert "pushed" in pushed
    b.ok("sync", "--cloud", "--import", "--project", "team")
    assert b.memories("team") == a.memories("team")
    assert len(b.memories("team")) == 3
    hits = json.loads(b.ok("search", "alpha", "--project", "team", "--json"))["results"]
    assert [h["content"] for h in hits] == ["use postgres"]

    # Edit (topic revision), hard delete and soft delete on A; B follows.
    a.ok("save", "alpha decision", "use postgres 16", "--project", "team", "--topic", "db/choice")
    a.ok("delete", str(doomed["observation"]["id"]), "--hard", "--project", "team")
    gamma = json.loads(a.ok("search", "gamma", "--project", "team", "--json"))["results"][0]
    a.ok("delete", str(gamma["id"]), "--project", "team")
    a.ok("sync", "--cloud", "--project", "team")
    b.ok("sync", "--cloud", "--import", "--project", "team")
    on_b = b.memories("team")
    assert on_b == a.memories("team")
    assert doomed["observation"]["sync_id"] not in on_b
    assert sorted(on_b.values()) == [
        ("alpha decision", "use postgres 16", False),
        ("gamma note", "to be hidden", True),
    ]

    # And back: B writes, A imports; a second import changes nothing.
    b.ok("save", "delta from b", "written on laptop b", "--project", "team")
    b.ok("sync", "--cloud", "--project", "team")
    a.ok("sync", "--cloud", "--import", "--project", "team")
    assert a.memories("team") == b.memories("team")
    again = a.ok("sync", "--cloud", "--import", "--project", "team")
    assert "imported 0 remote mutations" in again
    lines = again.splitlines()
    assert lines[0].startswith("import progress: ") and "pending 0" in lines[-2]
    assert lines[-2].startswith("import progress: 100%")
    assert a.ok("sync", "--cloud", "--project", "team").startswith("pushed 0 mutations")


def test_reason_codes_on_stderr(sandbox: Sandbox, cloud: CloudServer, tmp_path: Path) -> None:
    laptop = Laptop(tmp_path / "c", sandbox.env())
    unconfigured = laptop.run("sync", "--cloud", "--project", "team")
    assert unconfigured.returncode == 1
    assert unconfigured.stderr.startswith("error: cloud_config_error")
    laptop.ok("cloud", "config", "--server", cloud.url)
    unenrolled = laptop.run("sync", "--cloud", "--project", "team")
    assert unenrolled.stderr.startswith("error: blocked_unenrolled")
    by_env = laptop.run("sync", "--project", "team", ENGRAM_CLOUD_SYNC="1")
    assert by_env.stderr.startswith("error: blocked_unenrolled")
    laptop.ok("cloud", "enroll", "team")
    no_token = laptop.run("sync", "--cloud", "--project", "team")
    laptop.ok("save", "x", "y", "--project", "team")
    no_token = laptop.run("sync", "--cloud", "--project", "team")
    assert no_token.returncode == 1 and no_token.stderr.startswith("error: auth_required")
    every = laptop.run("sync", "--cloud", "--all")
    assert every.returncode == 1 and "--all is not supported" in every.stderr
    laptop.ok("cloud", "config", "--server", "http://127.0.0.1:9")
    down = laptop.run("sync", "--cloud", "--project", "team", ENGRAM_CLOUD_TOKEN=SYNC_TOKEN)
    assert down.returncode == 1 and down.stderr.startswith("error: transport_failed")
    assert "Traceback" not in down.stderr
