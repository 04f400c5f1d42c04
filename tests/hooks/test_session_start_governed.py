"""The SessionStart pack follows the working-note rule like ``engram_load`` (issue 9, item 5;
seed 000 "Working-tier notes"): a working note appears as a one-line card unless
``ENGRAM_SESSION_OBJECTIVE`` matches the note's objective; durable knowledge as its body.
Through the real ``engram hook claude`` in a repository the user confirmed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engram.memory.governed import Candidate, commit, propose, propose_note
from engram.memory.governed.base import open_knowledge_base
from engram.testing import Sandbox

ENGRAM = str(Path(sys.executable).with_name("engram"))
NOTE = "Search ranking is half done\nNext step: break score ties by newest id."
RULE = "Run migrations with --lock-timeout 5s."


def _engram(sandbox: Sandbox, folder: Path, *args: str, stdin: str = "", **env: str) -> str:
    done = subprocess.run(
        [ENGRAM, *args],
        cwd=folder,
        env=sandbox.env(**env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def _repo_with_knowledge(sandbox: Sandbox) -> Path:
    repo = sandbox.root / "src" / "search"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _engram(sandbox, repo, "init", "--confirm")
    with open_knowledge_base(repo) as kb:
        commit(kb, propose(kb, [Candidate("Migrations", RULE, "convention")]).approval_token)
        commit(kb, propose_note(kb, NOTE, objective="finish search ranking").approval_token)
    return repo


def _session_start(sandbox: Sandbox, repo: Path, **env: str) -> str:
    event = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s1"}
    out = _engram(
        sandbox, repo, "hook", "claude", stdin=json.dumps({**event, "cwd": str(repo)}), **env
    )
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"])


def test_a_working_note_is_a_card_unless_the_objective_matches(sandbox: Sandbox) -> None:
    repo = _repo_with_knowledge(sandbox)
    plain = _session_start(sandbox, repo)
    assert RULE in plain  # durable knowledge: its body
    assert "Search ranking is half done (note)" in plain  # the note: its one-line card
    assert "break score ties" not in plain

    other = _session_start(sandbox, repo, ENGRAM_SESSION_OBJECTIVE="write the docs")
    assert "break score ties" not in other and "(note)" in other

    matching = _session_start(sandbox, repo, ENGRAM_SESSION_OBJECTIVE="Finish  search ranking")
    assert "break score ties by newest id" in matching and RULE in matching


def test_the_same_rule_as_engram_load(sandbox: Sandbox) -> None:
    repo = _repo_with_knowledge(sandbox)
    loaded = _engram(sandbox, repo, "load")
    pack = _session_start(sandbox, repo)
    for line in loaded.splitlines():
        if line.startswith("- ["):  # every card engram load shows, the pack shows
            assert line in pack, line


GLOBAL = "Never force-push a shared branch."


def test_global_knowledge_reaches_a_project_that_has_none_of_its_own(sandbox: Sandbox) -> None:
    """The cheap probe that skips the governed layer counts global memories too."""
    first = _repo_with_knowledge(sandbox)
    with open_knowledge_base(first) as kb:
        candidate = Candidate("Force pushes", GLOBAL, "convention", scope="global")
        commit(kb, propose(kb, [candidate]).approval_token)
    other = sandbox.root / "src" / "billing"
    other.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    _engram(sandbox, other, "init", "--confirm")
    pack = _session_start(sandbox, other)
    assert GLOBAL in pack and RULE not in pack
