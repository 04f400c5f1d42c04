"""A repository's chunks write only the project bound to it (issue 22, points 1 and 2).

Anyone with push access to a repository can add a chunk to ``.engram/``. The user's own
``payroll`` memories live beside the repository's ``app`` project; a planted chunk tries to
overwrite, hard-delete and plant ``payroll`` memories (directly, through a payload naming
another project, and through an ``app`` mutation that reuses a ``payroll`` key). Only the
``app`` mutation may land; the rest is counted ``refused``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from engram.sync.chunk import encode_chunk
from engram.testing import Sandbox
from tests.reliability.conftest import Run, assert_one_line_error

ATTACKER = "a77ac4e2a77ac4e2"


def _git_repo(folder: Path, remote: str) -> Path:
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", remote], check=True)
    return folder


def _observation(
    seq: int, key: str, project: str, content: str, payload_project: str | None = None
) -> str:
    body = {
        "sync_id": key, "session_id": None, "type": "manual", "title": f"note {seq}",
        "content": content, "tool_name": None, "project": payload_project or project,
        "scope": "project",
        "topic_key": None, "normalized_hash": f"h{seq}", "revision_count": 1,
        "expires_at": None, "created_at": "2026-11-30 12:00:00",
        "updated_at": "2026-11-30 12:00:00", "deleted_at": None,
    }  # fmt: skip
    mutation = {"origin": ATTACKER, "seq": seq, "entity": "observation", "key": key,
                "op": "upsert", "project": project, "payload": body}  # fmt: skip
    return json.dumps(mutation)


def _delete(seq: int, key: str, project: str) -> str:
    mutation = {"origin": ATTACKER, "seq": seq, "entity": "observation", "key": key, "op": "delete",
                "project": project, "payload": {"deleted_at": "2026-11-30 12:00:00"}}  # fmt: skip
    return json.dumps(mutation)


def _plant(repo: Path, lines: list[str]) -> str:
    chunk = encode_chunk(ATTACKER, "2026-11-30 12:00:00", lines)
    (repo / ".engram" / "chunks").mkdir(parents=True, exist_ok=True)
    (repo / ".engram" / "chunks" / chunk.file_name).write_bytes(chunk.data)
    return chunk.id


def _memories(engram: Run, project: str) -> dict[str, tuple[str, str]]:
    done = engram("export", "--project", project)
    assert done.returncode == 0, done.stderr
    return {
        o["sync_id"]: (o["project"], o["content"]) for o in json.loads(done.stdout)["observations"]
    }


def _payroll(engram: Run) -> tuple[str, str]:
    keys = []
    for title in ("salary bands", "bonus dates"):
        saved = engram("save", title, f"{title}: the real text", "--project", "payroll", "--json")
        assert saved.returncode == 0, saved.stderr
        keys.append(json.loads(saved.stdout)["observation"]["sync_id"])
    return keys[0], keys[1]


def test_a_planted_chunk_writes_only_the_repository_project(engram: Run, sandbox: Sandbox) -> None:
    kept, doomed = _payroll(engram)
    before = _memories(engram, "payroll")
    repo = _git_repo(sandbox.workspace / "app", "git@github.com:team/app.git")
    _plant(repo, [
        _observation(1, kept, "payroll", "EVIL: pay the attacker"),      # overwrite
        _delete(2, doomed, "payroll"),                                    # hard delete
        _observation(3, "obs-planted", "payroll", "EVIL: planted"),       # plant
        _observation(4, "obs-sneaky", "app", "EVIL", "payroll"),  # payload disagrees
        _observation(5, kept, "app", "EVIL: moved into app"),             # reuse a payroll key
        _delete(6, doomed, "app"),                                        # delete through app
        _observation(7, "obs-legit", "app", "the app's own note"),
    ])  # fmt: skip

    done = engram("sync", "--import", "--json", cwd=repo)

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["refused"] == 6 and report["mutations"]["applied"] == 1
    assert report["refused_projects"] == ["payroll"]
    assert _memories(engram, "payroll") == before
    assert _memories(engram, "app") == {"obs-legit": ("app", "the app's own note")}
    human = engram("sync", "--import", cwd=repo)
    assert human.returncode == 0 and "Traceback" not in human.stderr
    assert "refused 6 mutations of 'payroll'" in human.stderr
    assert _memories(engram, "payroll") == before


def test_an_unbound_repository_gets_nothing_until_confirmed(engram: Run, sandbox: Sandbox) -> None:
    real = _git_repo(sandbox.workspace / "app", "git@github.com:team/app.git")
    assert engram("init", "--confirm", cwd=real).returncode == 0
    assert engram("save", "deploy", "blue/green", "--project", "app").returncode == 0
    clone = _git_repo(sandbox.workspace / "fork", "https://github.com/attacker/app.git")
    (clone / ".engram").mkdir()
    (clone / ".engram" / "config.json").write_text('{"project_name": "app"}')
    _plant(clone, [_observation(1, "obs-fork", "app", "EVIL: from the fork")])
    before = _memories(engram, "app")

    unbound = engram("sync", "--import", cwd=clone)
    assert_one_line_error(unbound, "sync.unconfirmed")
    assert "attacker/app" in unbound.stderr and "--confirm" in unbound.stderr
    named = engram("sync", "--import", "--project", "app", cwd=clone)
    assert_one_line_error(named, "sync.unconfirmed")
    assert _memories(engram, "app") == before

    confirmed = engram("sync", "--import", "--project", "app", "--confirm", "--json", cwd=clone)
    assert confirmed.returncode == 0, confirmed.stderr
    assert json.loads(confirmed.stdout)["mutations"]["applied"] == 1
    assert "obs-fork" in _memories(engram, "app")
    bindings = json.loads((sandbox.data_dir / "project-bindings.json").read_text())
    assert "remote:github.com/attacker/app" in bindings["projects"]["app"]
