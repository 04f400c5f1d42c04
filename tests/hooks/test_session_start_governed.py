"""The SessionStart pack follows the working-note rule like ``engram_load`` (issue 9, item 5;
seed 000 "Working-tier notes"): a working note appears as a one-line card unless
``ENGRAM_SESSION_OBJECTIVE`` matches the note's objective; durable knowledge as its body.
Through the real ``engram hook claude`` in a repository the user confirmed."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from engram.memory.governed import Candidate, commit, propose, propose_note
from engram.memory.governed.base import open_knowledge_base
from engram.memory.session_knowledge import CACHE_FILE
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
    if not out.strip():
        return ""  # nothing to inject: the hook answers with nothing
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


# -- the kept pack (engram.memory.session_knowledge) ------------------------------------------

IMPORTS_CHILD = """
import io, json, sys
from engram.cli.entry import main
sys.stdout = io.StringIO()
main(["hook", "claude"])
sys.__stdout__.write(json.dumps(sorted(sys.modules)))
"""


def _kept(sandbox: Sandbox) -> Path:
    return sandbox.data_dir / "hooks" / CACHE_FILE


def _usage(sandbox: Sandbox) -> dict[str, int]:
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        rows = conn.execute("SELECT id, usage_count FROM governed_memories").fetchall()
    return {str(memory_id): int(count) for memory_id, count in rows}


def _fresh(sandbox: Sandbox, repo: Path, **env: str) -> str:
    """The pack built from scratch: the kept one thrown away first."""
    _kept(sandbox).unlink(missing_ok=True)
    return _session_start(sandbox, repo, **env)


def test_a_kept_pack_is_served_as_built_and_counts_as_a_load(sandbox: Sandbox) -> None:
    repo = _repo_with_knowledge(sandbox)
    before = _usage(sandbox)
    built = _session_start(sandbox, repo)
    assert RULE in built
    assert _kept(sandbox).stat().st_mode & 0o777 == 0o600
    once = _usage(sandbox)
    served = _session_start(sandbox, repo)
    assert served == built
    twice = _usage(sandbox)
    assert {k: twice[k] - once[k] for k in twice} == {k: once[k] - before[k] for k in once}
    assert sum(twice.values()) > sum(once.values())  # the durable rule counted both times
    # Served without the governed layer: nothing of engram.memory.governed is imported.
    event = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s1"}
    child = subprocess.run(
        [sys.executable, "-c", IMPORTS_CHILD],
        input=json.dumps({**event, "cwd": str(repo)}),
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=repo,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr
    modules = json.loads(child.stdout)
    assert "engram.memory.session_knowledge" in modules
    assert not [m for m in modules if m.startswith("engram.memory.governed")]


def test_the_kept_pack_follows_every_input(sandbox: Sandbox) -> None:
    repo = _repo_with_knowledge(sandbox)
    db = sandbox.data_dir / "engram.db"
    _session_start(sandbox, repo)

    def changed(sql: str, *args: object) -> None:
        with sqlite3.connect(db) as conn:
            conn.execute(sql, args)

    steps: list[tuple[str, Callable[[], None]]] = [
        (
            "a new approved memory",
            lambda: _approve(repo, Candidate("Reviews", "Two approvals per merge.", "convention")),
        ),
        (
            "a body edited in the store",
            lambda: changed(
                "UPDATE governed_memories SET body = ? WHERE body = ?", "Lock timeout 9s.", RULE
            ),
        ),
        ("the active roles", lambda: _set(repo, "roles", ["backend"])),
        (
            "a role tag",
            lambda: changed(
                "UPDATE governed_memories SET roles = '[\"frontend\"]' WHERE tier = 'durable'"
            ),
        ),
        ("other active roles", lambda: _set(repo, "roles", ["frontend"])),
        ("the rule variant", lambda: _set(repo, "variant", "short")),
        (
            "a note expiring",
            lambda: changed(
                "UPDATE governed_memories SET valid_until = '2000-01-01' WHERE tier = 'working'"
            ),
        ),
        (
            "a broken config file",
            lambda: (sandbox.data_dir / "config.json").write_text("{broken", encoding="utf-8"),
        ),
        ("the config file mended", lambda: (sandbox.data_dir / "config.json").unlink()),
    ]
    seen = {_session_start(sandbox, repo)}
    for label, change in steps:
        change()
        served = _session_start(sandbox, repo)
        assert served == _fresh(sandbox, repo), label
        seen.add(served)
    assert len(seen) >= 6  # the steps really changed what a session starts with


def test_a_damaged_kept_pack_is_rebuilt(sandbox: Sandbox) -> None:
    repo = _repo_with_knowledge(sandbox)
    built = _session_start(sandbox, repo)
    for damage in ("not json", "[]", '{"search": {"inputs": 1}}', '{"search": []}'):
        _kept(sandbox).write_text(damage, encoding="utf-8")
        assert _session_start(sandbox, repo) == built, damage
    kept = json.loads(_kept(sandbox).read_text(encoding="utf-8"))
    pack = next(iter(kept.values()))
    pack["bodies"] = ["1; DROP TABLE governed_memories"]
    _kept(sandbox).write_text(json.dumps(kept), encoding="utf-8")
    assert _session_start(sandbox, repo) == built


def test_the_config_file_name_is_the_governed_layers() -> None:
    from engram.memory import session_knowledge
    from engram.memory.governed import config

    assert session_knowledge.CONFIG_FILE == config.CONFIG_FILE


def _approve(repo: Path, candidate: Candidate) -> None:
    with open_knowledge_base(repo) as kb:
        commit(kb, propose(kb, [candidate]).approval_token)


def _set(repo: Path, what: str, value: object) -> None:
    from engram.memory.governed import set_roles, set_rule_variant

    with open_knowledge_base(repo) as kb:
        if what == "roles":
            set_roles(kb, list(value))  # type: ignore[call-overload]
        else:
            set_rule_variant(kb, str(value))
