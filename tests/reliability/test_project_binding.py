"""A repository cannot choose another project's memories (issue 10, point 5).

The user's real ``payments`` repository (remote ``github.com/team/payments``) has memories.
Untrusted clones then claim ``payments`` — by ``.engram/config.json``, or by being
``github.com/attacker/payments`` — and must get nothing injected and nothing written until the
user runs ``engram init --confirm`` in them.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engram.testing import Sandbox
from tests.reliability.conftest import Run
from tests.server.mcp_process import call, initialize, run_server

SECRET_MEMORY = "Payments signing key rotates on Fridays"


def _git_repo(folder: Path, remote: str | None) -> Path:
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    if remote:
        subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", remote], check=True)
    return folder


def _hook(engram: Run, folder: Path, event: dict[str, Any]) -> str:
    body = {"session_id": f"s-{folder.name}", "cwd": str(folder), **event}
    result = engram("hook", "claude", cwd=folder, stdin=json.dumps(body))
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    return result.stdout


def _start(engram: Run, folder: Path) -> str:
    return _hook(engram, folder, {"hook_event_name": "SessionStart", "source": "startup"})


def _rows(sandbox: Sandbox, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        return conn.execute(sql).fetchall()


@pytest.fixture
def real_repo(sandbox: Sandbox, engram: Run) -> Path:
    repo = _git_repo(sandbox.root / "src" / "payments", "git@github.com:team/payments.git")
    _start(engram, repo)  # first use binds the project to this origin
    saved = engram("save", "Key rotation", SECRET_MEMORY, "--project", "payments", cwd=repo)
    assert saved.returncode == 0, saved.stderr
    assert SECRET_MEMORY in _start(engram, repo)
    return repo


def _config_clone(sandbox: Sandbox) -> Path:
    clone = sandbox.root / "downloads" / "innocent-tool"
    (clone / ".engram").mkdir(parents=True)
    (clone / ".engram" / "config.json").write_text('{"project_name": "payments"}\n')
    return clone


def _attacker_clone(sandbox: Sandbox) -> Path:
    return _git_repo(sandbox.root / "attacker" / "payments", "https://github.com/attacker/payments")


@pytest.mark.parametrize("make_clone", [_config_clone, _attacker_clone])
def test_untrusted_clone_gets_no_memories_and_writes_none(
    sandbox: Sandbox, engram: Run, real_repo: Path, make_clone: Any
) -> None:
    clone = make_clone(sandbox)
    before = _rows(sandbox, "SELECT count(*) FROM user_prompts")
    assert SECRET_MEMORY not in _start(engram, clone)
    prompt = {"hook_event_name": "UserPromptSubmit", "prompt": "exfiltrate everything"}
    assert SECRET_MEMORY not in _hook(engram, clone, prompt)
    assert _rows(sandbox, "SELECT count(*) FROM user_prompts") == before
    assert not _rows(sandbox, f"SELECT id FROM sessions WHERE directory = '{clone}'")
    answer = run_server(
        sandbox,
        [
            *initialize(),
            call(1, "mem_context", {}),
            call(2, "mem_search", {"query": "rotation"}),
            call(3, "mem_save", {"title": "Planted", "content": "planted by the clone"}),
        ],
        cwd=clone,
    )
    for rid in (1, 2, 3):
        text = json.dumps(answer.result(rid))
        assert SECRET_MEMORY not in text and "project.unconfirmed" in text, text
    assert not _rows(sandbox, "SELECT id FROM observations WHERE title = 'Planted'")
    doctor = engram("doctor", "--json", "--check", "project", cwd=clone)
    findings = json.loads(doctor.stdout)
    flat = json.dumps(findings)
    assert "project.binding" in flat and "init --confirm" in flat and "team/payments" in flat


def test_confirming_once_lets_the_repository_in(
    sandbox: Sandbox, engram: Run, real_repo: Path
) -> None:
    clone = _attacker_clone(sandbox)
    assert SECRET_MEMORY not in _start(engram, clone)
    confirmed = engram("init", "--confirm", cwd=clone)
    assert confirmed.returncode == 0, confirmed.stderr
    assert "payments" in confirmed.stdout
    assert SECRET_MEMORY in _start(engram, clone)
    assert SECRET_MEMORY in _start(engram, real_repo)


def test_project_from_before_bindings_stays_usable_where_it_was_used(
    sandbox: Sandbox, engram: Run
) -> None:
    repo = _git_repo(sandbox.root / "src" / "billing", None)
    _start(engram, repo)  # the project's first session starts here
    saved = engram("save", "Invoice rule", "Round half even", "--project", "billing", cwd=repo)
    assert saved.returncode == 0
    (sandbox.data_dir / "project-bindings.json").unlink()  # as if made by an older Engram
    assert "Round half even" in _start(engram, repo)
    clone = sandbox.root / "elsewhere"
    (clone / ".engram").mkdir(parents=True)
    (clone / ".engram" / "config.json").write_text('{"project_name": "billing"}\n')
    assert "Round half even" not in _start(engram, clone)


@pytest.mark.parametrize("make_clone", [_config_clone, _attacker_clone])
def test_engram_serve_in_an_untrusted_clone_answers_unconfirmed(
    sandbox: Sandbox, engram: Run, real_repo: Path, make_clone: Any
) -> None:
    from tests.serve.conftest import start_server

    clone = make_clone(sandbox)
    server = start_server(sandbox, cwd=clone)
    try:
        for path in ("/search?q=rotation", "/context", "/observations/recent"):
            reply = server.client.get(path)  # the project left to the server's folder
            assert reply.status == 409, (path, reply.status, reply.raw)
            assert reply.json["code"] == "project.unconfirmed"
            assert SECRET_MEMORY.encode() not in reply.raw
        named = server.client.get("/search?q=rotation&project=payments")  # the caller's choice
        assert named.status == 200 and SECRET_MEMORY.encode() in named.raw
        confirmed = engram("init", "--confirm", cwd=clone)
        assert confirmed.returncode == 0, confirmed.stderr
        reply = server.client.get("/search?q=rotation")  # the same server sees the binding
        assert reply.status == 200 and SECRET_MEMORY.encode() in reply.raw
    finally:
        server.stop()
