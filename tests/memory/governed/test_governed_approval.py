"""Proposals write nothing; only an approved, intact, unexpired token commits, exactly once."""

from __future__ import annotations

import json

import pytest
from governed_support import Clock

from engram.errors import EngramError
from engram.memory.governed import Candidate, KnowledgeBase, commit, decline, propose
from engram.memory.governed.approvals import token_hash


def durable(kb: KnowledgeBase) -> list[tuple[str, str, str]]:
    rows = kb.conn.execute(
        "SELECT id, title, status FROM governed_memories WHERE tier = 'durable' ORDER BY id"
    ).fetchall()
    return [tuple(r) for r in rows]


UV = Candidate("Use uv for dependencies", "Install and lock with uv, never pip.", "rule")
TABS = Candidate("Indent with four spaces", "Python code uses four spaces, no tabs.", "convention")


def test_propose_writes_nothing_and_commit_writes_exactly_the_approved(kb: KnowledgeBase) -> None:
    proposal = propose(kb, [UV, TABS])
    assert [v.line() for v in proposal.verdicts] == ["ADD", "ADD"]
    assert "1. [rule] Use uv for dependencies" in proposal.text
    assert "Verdict: ADD" in proposal.text
    assert durable(kb) == []

    outcome = commit(kb, proposal.approval_token, [2])
    assert [w["id"] for w in outcome.written] == ["indent-with-four-spaces"]
    assert durable(kb) == [("indent-with-four-spaces", "Indent with four spaces", "active")]


def test_token_is_single_use(kb: KnowledgeBase) -> None:
    proposal = propose(kb, [UV])
    commit(kb, proposal.approval_token, "all")
    with pytest.raises(EngramError) as err:
        commit(kb, proposal.approval_token, "all")
    assert err.value.code in {"governed.token_used", "governed.unknown_token"}
    assert len(durable(kb)) == 1


def test_token_expires_after_thirty_minutes(kb: KnowledgeBase, clock: Clock) -> None:
    proposal = propose(kb, [UV])
    clock.advance(minutes=30, seconds=1)
    with pytest.raises(EngramError) as err:
        commit(kb, proposal.approval_token, "all")
    assert err.value.code == "governed.token_expired"
    assert durable(kb) == []


def test_declined_proposal_cannot_be_committed(kb: KnowledgeBase) -> None:
    proposal = propose(kb, [UV])
    decline(kb.workspace, proposal.approval_token, kb.now())
    with pytest.raises(EngramError) as err:
        commit(kb, proposal.approval_token, "all")
    assert err.value.message == "approval was declined in the approval dialog"
    assert durable(kb) == []


def test_forged_token_and_bad_approve_write_nothing(kb: KnowledgeBase) -> None:
    proposal = propose(kb, [UV, TABS])
    with pytest.raises(EngramError) as err:
        commit(kb, "not-the-token", "all")
    assert err.value.code == "governed.unknown_token"
    for approve in ([0], [3], [1, 1], [], "some"):
        with pytest.raises(EngramError) as err:
            commit(kb, proposal.approval_token, approve)
        assert err.value.code == "governed.bad_approve"
    assert durable(kb) == []
    commit(kb, proposal.approval_token, "all")  # still usable after refused attempts
    assert len(durable(kb)) == 2


def test_pending_file_is_gitignored_and_holds_only_a_token_hash(kb: KnowledgeBase) -> None:
    proposal = propose(kb, [UV])
    pending = kb.workspace.pending_file
    text = pending.read_text()
    assert proposal.approval_token not in text
    assert json.loads(text)["proposals"][0]["token_sha256"] == token_hash(proposal.approval_token)
    ignore = (kb.workspace.engram_dir / ".gitignore").read_text().splitlines()
    assert "pending-approvals.json" in ignore and "working/" in ignore


def test_existing_gitignore_is_extended_not_replaced(kb: KnowledgeBase) -> None:
    kb.workspace.engram_dir.mkdir()
    (kb.workspace.engram_dir / ".gitignore").write_text("local.db")
    propose(kb, [UV])
    lines = (kb.workspace.engram_dir / ".gitignore").read_text().splitlines()
    assert lines[0] == "local.db" and "pending-approvals.json" in lines


def test_editing_a_pending_candidate_fails_the_integrity_check(kb: KnowledgeBase) -> None:
    proposal = propose(kb, [UV])
    pending = kb.workspace.pending_file
    data = json.loads(pending.read_text())
    data["proposals"][0]["candidates"][0]["body"] = "Install with curl | sh."
    pending.write_text(json.dumps(data))
    with pytest.raises(EngramError) as err:
        commit(kb, proposal.approval_token, "all")
    assert err.value.code == "governed.integrity"
    assert durable(kb) == []


def test_token_is_bound_to_its_workspace(kb: KnowledgeBase, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    from engram.memory.governed import resolve_workspace

    proposal = propose(kb, [UV])
    other = tmp_path_factory.mktemp("other")
    other_kb = KnowledgeBase(kb.conn, resolve_workspace(other, "demo"), clock=kb.clock)
    with pytest.raises(EngramError) as err:
        commit(other_kb, proposal.approval_token, "all")
    assert err.value.code == "governed.unknown_token"
    # A pending file copied to another workspace fails too: the entry names its workspace.
    other_kb.workspace.prepare()
    other_kb.workspace.pending_file.write_text(kb.workspace.pending_file.read_text())
    with pytest.raises(EngramError) as err:
        commit(other_kb, proposal.approval_token, "all")
    assert err.value.code == "governed.integrity"
    assert durable(kb) == []


def test_verdicts_update_supersede_noop_and_related(kb: KnowledgeBase) -> None:
    commit(kb, propose(kb, [UV]).approval_token, "all")
    decision = Candidate("Store is SQLite", "We keep memory in SQLite with FTS5.", "decision")
    commit(kb, propose(kb, [decision]).approval_token, "all")

    reworded = Candidate("Use uv for dependencies", "Lock with uv; pip is not allowed.", "rule")
    new_decision = Candidate("Store is SQLite", "SQLite with FTS5 and WAL.", "decision")
    same = Candidate("use uv for   dependencies", "Install and lock with uv, never PIP.", "rule")
    close = Candidate(
        "Dependencies with uv", "Install and lock dependencies with uv, never pip.", "convention"
    )
    proposal = propose(kb, [reworded, new_decision, same, close])
    lines = [v.line() for v in proposal.verdicts]
    assert lines[0] == "UPDATE use-uv-for-dependencies"
    assert lines[1] == "SUPERSEDE store-is-sqlite"
    assert lines[2] == "NOOP duplicate of use-uv-for-dependencies"
    assert lines[3] == "ADD (related to use-uv-for-dependencies)"

    outcome = commit(kb, proposal.approval_token, "all")
    assert [w["number"] for w in outcome.written] == [1, 2]
    assert {d["number"] for d in outcome.deferred} == {3, 4}
    rows = dict((r[0], r[2]) for r in durable(kb))
    assert rows == {
        "use-uv-for-dependencies": "active",
        "store-is-sqlite": "superseded",
        "store-is-sqlite-2": "active",
    }
    body = kb.conn.execute(
        "SELECT body FROM governed_memories WHERE id = 'use-uv-for-dependencies'"
    ).fetchone()[0]
    assert body == "Lock with uv; pip is not allowed."


def test_supersede_applies_only_while_the_verdict_still_matches(kb: KnowledgeBase) -> None:
    old = Candidate("Store is SQLite", "We keep memory in SQLite.", "decision")
    commit(kb, propose(kb, [old]).approval_token, "all")
    first = propose(kb, [Candidate("Store is SQLite", "SQLite + FTS5.", "decision")])
    second = propose(kb, [Candidate("Store is SQLite", "SQLite + WAL.", "decision")])
    assert first.verdicts[0].line() == second.verdicts[0].line() == "SUPERSEDE store-is-sqlite"
    commit(kb, first.approval_token, "all")
    outcome = commit(kb, second.approval_token, "all")
    assert outcome.written == ()
    assert "verdict changed" in outcome.deferred[0]["reason"]
    active = kb.conn.execute(
        "SELECT body FROM governed_memories WHERE status = 'active' AND tier = 'durable'"
    ).fetchall()
    assert [tuple(r) for r in active] == [("SQLite + FTS5.",)]


def test_bad_candidates_are_refused_before_any_proposal(kb: KnowledgeBase) -> None:
    bad = [
        Candidate("  ", "body"),
        Candidate("title", ""),
        Candidate("title", "body", type="opinion"),
        Candidate("title", "body", scope="galaxy"),
        Candidate("title", "body", supersedes="no-such-memory"),
    ]
    for candidate in bad:
        with pytest.raises(EngramError):
            propose(kb, [candidate])
    assert not kb.workspace.pending_file.exists()


def test_secrets_are_redacted_before_the_preview(kb: KnowledgeBase) -> None:
    proposal = propose(
        kb,
        [Candidate("Deploy key", "Use <private>hunter2</private> and ghp_" + "a" * 30, "gotcha")],
    )
    assert "hunter2" not in proposal.text and "ghp_" not in proposal.text
    assert "hunter2" not in kb.workspace.pending_file.read_text()


def test_scope_can_be_narrowed_never_widened(kb: KnowledgeBase) -> None:
    wide = Candidate("Prefer pathlib", "Use pathlib over os.path.", "convention", scope="global")
    narrow = Candidate("Prefer httpx", "Use httpx over requests.", "convention")
    with pytest.raises(EngramError) as err:
        commit(kb, propose(kb, [narrow]).approval_token, "all", scope="global")
    assert err.value.code == "governed.scope_widened"
    commit(kb, propose(kb, [wide]).approval_token, "all", scope="project")
    rows = kb.conn.execute("SELECT scope, project FROM governed_memories").fetchall()
    assert [tuple(r) for r in rows] == [("project", "demo")]


def test_accepting_a_mixed_dialog_as_shown_saves_each_at_its_own_scope(kb: KnowledgeBase) -> None:
    from engram.server.governed_approval import dialog_for, parse_answer

    wide = Candidate("Prefer pathlib", "Use pathlib over os.path.", "convention", scope="global")
    narrow = Candidate("Prefer httpx", "Use httpx over requests.", "convention")
    proposal = propose(kb, [wide, narrow])
    dialog = dialog_for(proposal)
    shown = {k: v["default"] for k, v in dialog.schema["properties"].items()}
    assert shown["scope"] == "global"  # the dialog's default, accepted untouched
    numbers, scope = parse_answer(dialog, shown)
    commit(kb, proposal.approval_token, numbers, scope=scope)
    rows = kb.conn.execute("SELECT title, scope FROM governed_memories ORDER BY title").fetchall()
    assert [tuple(r) for r in rows] == [("Prefer httpx", "project"), ("Prefer pathlib", "global")]
    # Narrowing from the dialog still applies to every candidate.
    both = propose(kb, [Candidate("Prefer ruff", "Lint with ruff.", "convention", scope="global")])
    numbers, scope = parse_answer(dialog_for(both), {"scope": "project"})
    assert scope == "project"
