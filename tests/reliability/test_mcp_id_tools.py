"""MCP id tools check the project (issue 10, point 11): an agent working in one project cannot
pin, unpin, review or walk the timeline of another project's observation by id. Reading one by
id is the exception the seed makes and issue 23 restores: ``mem_get_observation`` "does not
filter the ID-based lookup by observation ownership" (``project`` selects only the envelope)."""

from __future__ import annotations

import json
import sqlite3

from engram.testing import Sandbox
from tests.reliability.conftest import Run
from tests.server.mcp_process import call, initialize, run_server


def _ids(sandbox: Sandbox, project: str) -> list[int]:
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        rows = conn.execute("SELECT id FROM observations WHERE project = ?", (project,))
        return [int(r[0]) for r in rows]


def test_id_tools_refuse_another_projects_observation(sandbox: Sandbox, engram: Run) -> None:
    saved = engram("save", "Payments secret plan", "Only for payments", "--project", "payments")
    assert saved.returncode == 0, saved.stderr
    assert engram("save", "Beta note", "beta content", "--project", "beta").returncode == 0
    (sandbox.workspace / ".engram").mkdir()
    (sandbox.workspace / ".engram" / "config.json").write_text('{"project_name": "beta"}\n')
    [foreign] = _ids(sandbox, "payments")
    [own] = _ids(sandbox, "beta")
    calls = [
        ("mem_pin", {"id": foreign}),
        ("mem_unpin", {"id": foreign}),
        ("mem_review", {"action": "mark_reviewed", "observation_id": foreign}),
        ("mem_timeline", {"observation_id": foreign}),
        ("mem_get_observation", {"id": own}),
        ("mem_pin", {"id": own}),
        ("mem_get_observation", {"id": foreign, "project": "beta"}),
    ]
    lines = [*initialize()] + [call(i, name, args) for i, (name, args) in enumerate(calls, 1)]
    answer = run_server(sandbox, lines)
    for i, (name, _) in enumerate(calls[:4], 1):
        result = answer.result(i)
        assert result.get("isError") is True, (name, result)
        text = json.dumps(result)
        assert "memory.not_found" in text, (name, text)
        assert "Only for payments" not in text and "server.internal" not in text
    assert answer.result(5).get("isError") is False
    assert answer.result(6).get("isError") is False
    by_id = answer.result(7)  # the seed's id lookup: found, the envelope is beta's
    assert by_id.get("isError") is False and "Only for payments" in json.dumps(by_id)
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        pins = dict(conn.execute("SELECT id, pinned FROM observations").fetchall())
    assert pins[foreign] == 0 and pins[own] == 1
