"""A state machine of random governed calls: no durable memory is ever written unapproved.

Every operation but ``commit`` with a live, intact token must leave the durable memories
exactly as they were; a commit writes only candidates of the proposal its token names.
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from governed_support import Clock, open_test_store
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from engram.errors import EngramError
from engram.memory.governed import (
    Candidate,
    KnowledgeBase,
    commit,
    decline,
    load,
    propose,
    propose_note,
    resolve_workspace,
    route,
    search,
    set_roles,
    set_rule_variant,
    status,
    verify,
)

TITLES = st.sampled_from(["Run ruff", "Use uv", "Store is SQLite", "Tabs", "Flaky tests"])
BODIES = st.sampled_from(["must pass", "never pip", "with FTS5", "four spaces", "sort by id"])
TYPES = st.sampled_from(["rule", "decision", "convention", "gotcha"])
CANDIDATES = st.builds(Candidate, title=TITLES, body=BODIES, type=TYPES)


class GovernedCalls(RuleBasedStateMachine):
    """Random sequences of agent-side calls against one real store."""

    proposals = Bundle("proposals")

    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.TemporaryDirectory()
        root = Path(self.tmp.name)
        (root / "ws").mkdir()
        self.store = open_test_store(root / "data")
        self.clock = Clock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
        ws = resolve_workspace(root / "ws", "demo")
        self.kb = KnowledgeBase(self.store.connection, ws, clock=self.clock)
        self.before = self.durable()

    def teardown(self) -> None:
        self.store.close()
        self.tmp.cleanup()

    def durable(self) -> list[tuple[Any, ...]]:
        rows = self.kb.conn.execute(
            "SELECT id, title, body, status, content_hash FROM governed_memories "
            "WHERE tier = 'durable' ORDER BY rowid"
        ).fetchall()
        return [tuple(r) for r in rows]

    def attempt(self, call: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return call(*args, **kwargs)
        except EngramError:
            return None

    # --- calls that must never change durable memory -------------------------------------

    @rule(target=proposals, candidates=st.lists(CANDIDATES, min_size=1, max_size=3))
    def agent_proposes(self, candidates: list[Candidate]) -> tuple[str, list[Candidate]]:
        proposal = propose(self.kb, candidates)
        return proposal.approval_token, list(proposal.candidates)

    @rule(target=proposals, text=BODIES)
    def agent_notes(self, text: str) -> tuple[str, list[Candidate]]:
        proposal = propose_note(self.kb, text)
        return proposal.approval_token, []

    @rule(query=TITLES, budget=st.integers(0, 300))
    def agent_reads(self, query: str, budget: int) -> None:
        load(self.kb, query, budget_tokens=budget)
        route(self.kb, query)
        search(self.kb, query)
        status(self.kb)
        verify(self.kb)

    @rule(
        roles=st.lists(st.sampled_from(["reviewer", "backend"]), max_size=2),
        variant=st.sampled_from(["full", "short"]),
    )
    def agent_sets_switches(self, roles: list[str], variant: str) -> None:
        set_roles(self.kb, roles)
        set_rule_variant(self.kb, variant)

    @rule(token=st.text(min_size=1, max_size=50))
    def agent_forges_a_token(self, token: str) -> None:
        self.attempt(commit, self.kb, token, "all")

    @rule(proposal=proposals)
    def human_declines_in_dialog(self, proposal: tuple[str, list[Candidate]]) -> None:
        self.attempt(decline, self.kb.workspace, proposal[0], self.kb.now())

    @rule(proposal=proposals, new_body=BODIES)
    def someone_edits_the_pending_file(
        self, proposal: tuple[str, list[Candidate]], new_body: str
    ) -> None:
        path = self.kb.workspace.pending_file
        data = json.loads(path.read_text())
        for entry in data["proposals"]:
            entry["candidates"][0]["body"] = new_body + " (edited)"
        path.write_text(json.dumps(data))

    @rule(minutes=st.integers(1, 40))
    def time_passes(self, minutes: int) -> None:
        self.clock.advance(minutes=minutes)

    # --- the one call that may write ------------------------------------------------------

    @rule(proposal=proposals, approve=st.sampled_from(["all", [1], [2], [1, 2]]))
    def agent_commits(self, proposal: tuple[str, list[Candidate]], approve: Any) -> None:
        token, candidates = proposal
        outcome = self.attempt(commit, self.kb, token, approve)
        after = self.durable()
        if outcome is None or outcome.note is not None:
            assert after == self.before
        else:
            approved = {(c.title, c.body) for c in candidates}
            changed = set(after) - set(self.before)
            for memory_id, title, body, state, _ in changed:
                assert (title, body) in approved or state == "superseded", memory_id
        self.before = after

    @invariant()
    def only_commits_change_durable_memory(self) -> None:
        assert self.durable() == self.before


GovernedCalls.TestCase.settings = settings(max_examples=25, stateful_step_count=15, deadline=None)
test_no_durable_memory_without_approval = GovernedCalls.TestCase
