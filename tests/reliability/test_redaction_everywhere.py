"""``<private>`` redaction covers every field of every write path (issue 10, point 7).

Distinct secrets are planted in every text field an agent or a file can set — through the CLI,
the MCP journal and governed tools, a hook, and an import — then the database file, its WAL,
the FTS index, the workspace's governed files and every export are searched for them.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from engram.testing import Sandbox
from tests.reliability.conftest import Run
from tests.server.mcp_process import LiveServer, call, initialize

PLANTED: list[str] = []


def secret(field: str) -> str:
    """``<private>`` around a token unique to ``field``; the token is remembered."""
    token = f"S3CR3T{len(PLANTED):02d}x{field.replace('_', '').upper()}"
    PLANTED.append(token)
    return f"<private>{token}</private>"


def _structured(answer: dict[str, Any] | None) -> dict[str, Any]:
    assert answer is not None and "result" in answer, answer
    result = answer["result"]
    assert result.get("isError") is False, result
    return result["structuredContent"]["data"]  # type: ignore[no-any-return]


def _mcp_journal(server: LiveServer) -> None:
    def tool(rid: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return _structured(server.send(call(rid, name, args)))

    tool(1, "mem_session_start", {"id": "s-1"})
    first = tool(
        2,
        "mem_save",
        {
            "title": "Retry policy " + secret("title"),
            "content": "Backoff " + secret("content"),
            "topic_key": "arch/retry-" + secret("topic_key"),
            "session_id": "s-1",
        },
    )
    second = tool(
        3,
        "mem_save",
        {"title": "Retry policy for uploads", "content": "Jitter", "session_id": "s-1"},
    )
    first_id, second_id = first["result"]["id"], second["result"]["id"]
    tool(
        4,
        "mem_update",
        {
            "id": second_id,
            "expected_project": "demo",
            "title": "Retry uploads " + secret("update_title"),
            "topic_key": "arch/upload-" + secret("update_topic"),
        },
    )
    tool(
        5,
        "mem_update",
        {
            "id": first_id,
            "expected_project": "demo",
            "find": "Backoff",
            "replace": "Backoff " + secret("replace"),
        },
    )
    tool(
        6,
        "mem_compare",
        {
            "memory_id_a": first_id,
            "memory_id_b": second_id,
            "relation": "related",
            "confidence": 0.9,
            "reasoning": "same topic " + secret("reasoning"),
            "model": "m-" + secret("model"),
        },
    )
    third = tool(
        7,
        "mem_save",
        {"title": "Retry policy uploads limits", "content": "Cap at 5", "session_id": "s-1"},
    )
    judgments = [c["judgment_id"] for c in third["result"]["candidates"]]
    assert judgments, third
    tool(
        8,
        "mem_judge",
        {
            "judgment_id": judgments[0],
            "relation": "related",
            "reason": "r " + secret("judge_reason"),
            "evidence": "e " + secret("judge_evidence"),
        },
    )
    tool(9, "mem_save_prompt", {"content": "fix it " + secret("prompt"), "session_id": "s-1"})
    tool(
        10,
        "mem_capture_passive",
        {
            "content": "## Key Learnings:\n- Pool size " + secret("passive") + "\n",
            "session_id": "s-1",
            "source": "src-" + secret("source"),
        },
    )
    tool(11, "mem_session_summary", {"content": "done " + secret("summary"), "session_id": "s-1"})
    tool(12, "mem_session_end", {"id": "s-1", "summary": "end " + secret("end_summary")})


def _mcp_governed(server: LiveServer) -> None:
    saved = _structured(
        server.send(
            call(
                20,
                "engram_save",
                {
                    "title": "Use retries " + secret("gov_title"),
                    "body": "Always retry idempotent calls " + secret("gov_body"),
                    "type": "decision",
                    "key": "retries-" + secret("gov_key"),
                },
            )
        )
    )
    token = saved["approval_token"]
    _structured(server.send(call(21, "engram_commit", {"approval_token": token, "approve": "all"})))
    _structured(
        server.send(
            call(
                22,
                "engram_note",
                {
                    "text": "Working on uploads " + secret("note_text"),
                    "objective": "ship " + secret("note_objective"),
                },
            )
        )
    )


def _hook_prompt(engram: Run, sandbox: Sandbox) -> None:
    event = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "h-1",
        "cwd": str(sandbox.workspace),
        "prompt": "deploy with " + secret("hook_prompt"),
    }
    assert engram("hook", "claude", stdin=json.dumps(event)).returncode == 0


def _import_file(engram: Run, sandbox: Sandbox) -> None:
    """Export a clean store, put a secret in every text field of every row, import it."""
    scratch = {"ENGRAM_DATA_DIR": str(sandbox.root / "scratch")}
    for title in ("Cache keys", "Cache keys layout"):
        assert (
            engram(
                "save", title, "body", "--project", "imported", "--topic", "c/k", env=scratch
            ).returncode
            == 0
        )
    exported = json.loads(engram("export", "--all", env=scratch).stdout)
    ids = {
        "id",
        "sync_id",
        "session_id",
        "source_id",
        "target_id",
        "project",
        "created_at",
        "updated_at",
        "deleted_at",
        "started_at",
        "ended_at",
        "last_seen_at",
        "review_after",
        "judgment_status",
        "relation",
        "scope",
        "type",
        "marked_by_kind",
        "normalized_hash",
        "expires_at",
        "superseded_at",
    }
    for kind in ("observations", "sessions", "prompts", "relations"):
        for row in exported.get(kind, []):
            for name, value in list(row.items()):
                if name not in ids and (isinstance(value, str) or value is None):
                    row[name] = f"{name} " + secret(f"imp_{kind[:3]}_{name}")
    file = sandbox.root / "planted.json"
    file.write_text(json.dumps(exported))
    result = engram("import", str(file))
    assert result.returncode == 0, result.stderr


def _everything_on_disk(sandbox: Sandbox, engram: Run) -> dict[str, bytes]:
    files = {str(p): p.read_bytes() for p in sandbox.data_dir.rglob("*") if p.is_file()}
    files.update({str(p): p.read_bytes() for p in sandbox.workspace.rglob("*") if p.is_file()})
    export = sandbox.root / "export.json"
    assert engram("export", str(export), "--all").returncode == 0
    files["export file"] = export.read_bytes()
    files["export stdout"] = engram("export", "--all").stdout.encode()
    with sqlite3.connect(sandbox.data_dir / "engram.db") as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            rows = conn.execute(f'SELECT * FROM "{table}"').fetchall()
            files[f"table {table}"] = repr(rows).encode()
    return files


def test_no_private_text_reaches_disk_or_exports(sandbox: Sandbox, engram: Run) -> None:
    PLANTED.clear()
    (sandbox.workspace / ".engram").mkdir()
    (sandbox.workspace / ".engram" / "config.json").write_text('{"project_name": "demo"}\n')
    cli = engram(
        "save",
        "CLI title " + secret("cli_title"),
        "CLI body " + secret("cli_content"),
        "--topic",
        "cli/" + secret("cli_topic"),
        "--project",
        "demo",
    )
    assert cli.returncode == 0, cli.stderr
    server = LiveServer(sandbox, "--project", "demo")
    try:
        for line in initialize():
            server.send(line)
        _mcp_journal(server)
        _mcp_governed(server)
    finally:
        server.close()
    _hook_prompt(engram, sandbox)
    _import_file(engram, sandbox)
    leaks: dict[str, list[str]] = {}
    for where, data in _everything_on_disk(sandbox, engram).items():
        for token in PLANTED:
            if token.encode() in data:
                leaks.setdefault(token, []).append(where.rsplit("/", 1)[-1])
    assert not leaks, "\n".join(f"{t}: {', '.join(w)}" for t, w in leaks.items())
    assert len(PLANTED) > 30


def test_session_ids_and_folders_keep_no_secret(sandbox: Sandbox) -> None:
    folder = sandbox.root / "a<private>S3CR3TxFOLDER<" / "private>b"
    folder.mkdir(parents=True)
    server = LiveServer(sandbox, "--project", "demo")
    try:
        for line in initialize():
            server.send(line)
        started = server.send(call(1, "mem_session_start", {"id": "s-1", "directory": str(folder)}))
        assert started is not None and started["result"].get("isError") is False, started
        refused = server.send(call(2, "mem_session_start", {"id": "<private>S3CR3TxID</private>"}))
        assert refused is not None and refused["result"].get("isError") is True
    finally:
        server.close()
    data = b"".join(p.read_bytes() for p in sandbox.data_dir.rglob("*") if p.is_file())
    assert b"S3CR3TxFOLDER" not in data and b"S3CR3TxID" not in data
