"""Read-only means read-only: ``engram doctor``, ``GET /doctor`` and ``mem_doctor`` leave the
user's store exactly as it was — no probe memory, no sync mutation, no tombstone, no bumped
id counter — while the round trip still checks save -> search -> delete in a scratch copy.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from engram.testing import Sandbox
from tests.reliability.conftest import Run
from tests.serve.conftest import start_server
from tests.server.mcp_process import call, initialize, run_server


def _dump(db: Path) -> list[str]:
    """Every row of every table (sqlite_sequence included), read without writing."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def _round_trip(report: dict[str, object]) -> dict[str, object]:
    findings = report["findings"]
    assert isinstance(findings, list)
    found = [f for f in findings if f["code"] == "store.round_trip"]
    assert found, findings
    return dict(found[0])


def test_doctor_cli_http_and_mcp_write_nothing(engram: Run, sandbox: Sandbox) -> None:
    saved = engram("save", "A real memory", "kept as it is", "--project", "mine")
    assert saved.returncode == 0, saved.stderr
    db = sandbox.data_dir / "engram.db"
    before = _dump(db)

    doctor = engram("doctor", "--json")
    assert "Traceback" not in doctor.stderr
    assert _round_trip(json.loads(doctor.stdout))["severity"] == "pass"
    assert _dump(db) == before

    exchange = run_server(sandbox, [*initialize(), call(1, "mem_doctor", {})])
    text = exchange.result(1)["content"][0]["text"]
    assert "store.round_trip" in text
    assert _dump(db) == before

    server = start_server(sandbox)
    try:
        reply = server.client.get("/doctor")
        assert reply.status == 200
        assert _round_trip(reply.json)["severity"] == "pass"
    finally:
        server.stop()
    assert _dump(db) == before
    projects = engram("projects", "list", "--json")
    assert "engram-doctor" not in projects.stdout
