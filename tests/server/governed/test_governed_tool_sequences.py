"""Random sequences of ``engram_*`` tool calls through the server's own call path.

Arguments are sometimes wrong on purpose. Whatever the sequence, durable memory changes only in
an ``engram_commit`` that carries a live token (the human's approval, given through the host's
permission prompt), and then only to candidates of that token's proposal.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from engram.server.app import EngramServer
from engram.server.mem_tools.context import STATE
from engram.server.options import ServerOptions
from engram.testing import Sandbox

TITLES = st.sampled_from(["Run ruff", "Use uv", "Store is SQLite", "Four spaces"])
BODIES = st.sampled_from(["must pass", "never pip", "with FTS5", "no tabs"])
TYPES = st.sampled_from(["rule", "decision", "convention", "gotcha", "opinion"])
JUNK = st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=8), st.lists(st.integers(0, 3)))


class ToolSequences(RuleBasedStateMachine):
    """One in-process server over a fresh sandbox store."""

    proposals = Bundle("proposals")

    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.TemporaryDirectory()
        self.box = Sandbox(Path(self.tmp.name))
        self.saved_env = dict(os.environ)
        self.saved_cwd = os.getcwd()
        os.environ.update(self.box.env(ENGRAM_PROJECT="demo"))
        os.chdir(self.box.workspace)
        STATE._store = None
        self.server = EngramServer(ServerOptions(tools=("governed",)))
        self.before = self.durable()

    def teardown(self) -> None:
        if STATE._store is not None:
            STATE._store.close()
            STATE._store = None
        os.chdir(self.saved_cwd)
        os.environ.clear()
        os.environ.update(self.saved_env)
        self.tmp.cleanup()

    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        return asyncio.run(self.server.call_tool(tool, arguments))

    def durable(self) -> list[tuple[Any, ...]]:
        path = self.box.data_dir / "engram.db"
        if not path.exists():
            return []
        conn = sqlite3.connect(path)
        try:
            rows = conn.execute(
                "SELECT id, title, body, status FROM governed_memories "
                "WHERE tier = 'durable' ORDER BY rowid"
            ).fetchall()
        except sqlite3.OperationalError:
            rows = []
        finally:
            conn.close()
        return [tuple(r) for r in rows]

    @staticmethod
    def token_of(result: dict[str, Any]) -> str:
        data = result["structuredContent"]["data"]
        return str(data.get("approval_token", "")) if result["isError"] is False else ""

    # --- agent calls that must not write durable memory ----------------------------------

    @rule(target=proposals, title=TITLES, body=BODIES, kind=TYPES)
    def save(self, title: str, body: str, kind: str) -> tuple[str, set[tuple[str, str]]]:
        result = self.call("engram_save", {"title": title, "body": body, "type": kind})
        return self.token_of(result), {(title, body)}

    @rule(target=proposals, pairs=st.lists(st.tuples(TITLES, BODIES), min_size=1, max_size=3))
    def save_session(self, pairs: list[tuple[str, str]]) -> tuple[str, set[tuple[str, str]]]:
        candidates = [{"title": t, "body": b, "type": "convention"} for t, b in pairs]
        result = self.call("engram_save_session", {"candidates": candidates})
        return self.token_of(result), set(pairs)

    @rule(target=proposals, text=BODIES)
    def note(self, text: str) -> tuple[str, set[tuple[str, str]]]:
        return self.token_of(self.call("engram_note", {"text": text})), set()

    @rule(
        tool=st.sampled_from(
            [
                "engram_load",
                "engram_route",
                "engram_search",
                "engram_verify",
                "engram_status",
                "engram_set_role",
                "engram_set_rule_variant",
            ]
        ),
        query=TITLES,
        junk=JUNK,
    )
    def read_or_switch(self, tool: str, query: str, junk: Any) -> None:
        arguments = {
            "engram_load": {"query": query, "budget_tokens": junk},
            "engram_route": {"query": query},
            "engram_search": {"query": query, "limit": junk},
            "engram_verify": {},
            "engram_status": {},
            "engram_set_role": {"roles": junk},
            "engram_set_rule_variant": {"mode": junk},
        }[tool]
        self.call(tool, arguments)

    @rule(token=st.text(max_size=40), approve=JUNK)
    def commit_without_a_live_token(self, token: str, approve: Any) -> None:
        result = self.call("engram_commit", {"approval_token": token, "approve": approve})
        assert result["isError"] is True

    @rule(proposal=proposals, body=BODIES)
    def edit_the_pending_file(self, proposal: tuple[str, set[tuple[str, str]]], body: str) -> None:
        path = self.box.workspace / ".engram" / "pending-approvals.json"
        if path.exists():
            data = json.loads(path.read_text())
            for entry in data["proposals"]:
                entry["candidates"][0]["body"] = body + " (edited)"
            path.write_text(json.dumps(data))

    # --- the human approves: engram_commit with a token from a proposal --------------------

    @rule(proposal=proposals, approve=st.sampled_from(["all", [1], [2], [1, 2], [0]]))
    def commit(self, proposal: tuple[str, set[tuple[str, str]]], approve: Any) -> None:
        token, approved = proposal
        self.call("engram_commit", {"approval_token": token, "approve": approve})
        after = self.durable()
        for memory_id, title, body, status in set(after) - set(self.before):
            assert (title, body) in approved or status == "superseded", memory_id
        self.before = after

    @invariant()
    def durable_memory_changes_only_in_commits(self) -> None:
        assert self.durable() == self.before


ToolSequences.TestCase.settings = settings(max_examples=15, stateful_step_count=12, deadline=None)
test_no_tool_sequence_writes_unapproved_memory = ToolSequences.TestCase
