"""The line transport: parse errors, notifications, and no request lost when stdin closes."""

from __future__ import annotations

import json

from engram.testing import Sandbox
from tests.server.mcp_process import initialize, modern, request, run_server


def test_malformed_line_gets_parse_error_and_serving_continues(sandbox: Sandbox) -> None:
    lines = [*initialize(1), "{not json", request(2, "ping")]
    answered = run_server(sandbox, lines)
    parse_errors = [m for m in answered.messages if m.get("error", {}).get("code") == -32700]
    assert len(parse_errors) == 1 and parse_errors[0]["id"] is None
    assert answered.result(2) == {}
    assert answered.returncode == 0


def test_deeply_nested_json_is_a_parse_error_not_a_crash(sandbox: Sandbox) -> None:
    lines = [*initialize(1), "[" * 100_000, "[" * 50_000 + "]" * 50_000, request(2, "ping")]
    answered = run_server(sandbox, lines)
    parse_errors = [m for m in answered.messages if m.get("error", {}).get("code") == -32700]
    assert len(parse_errors) == 2 and all(m["id"] is None for m in parse_errors)
    assert answered.result(2) == {}
    assert answered.returncode == 0


def test_json_that_is_not_json_rpc_is_an_invalid_request(sandbox: Sandbox) -> None:
    lines = [
        json.dumps([1, 2]),
        json.dumps({"id": 7, "method": "ping"}),
        *initialize(1),
        request(2, "ping"),
    ]
    answered = run_server(sandbox, lines)
    assert answered.error(7)["code"] == -32600
    batch = [m for m in answered.messages if m["id"] is None]
    assert batch and batch[0]["error"]["code"] == -32600
    assert answered.result(2) == {}


def test_a_request_with_an_unusable_id_is_refused_not_dropped(sandbox: Sandbox) -> None:
    # An id that is not a string or an integer must not turn the request into a notification.
    bad_ids = [{"a": 1}, [1], 1.5, True, None]
    lines = [*initialize(1)]
    lines += [json.dumps({"jsonrpc": "2.0", "id": rid, "method": "ping"}) for rid in bad_ids]
    answered = run_server(sandbox, [*lines, request(2, "ping")])
    refused = [m for m in answered.messages if m["id"] is None]
    assert [m["error"]["code"] for m in refused] == [-32600] * len(bad_ids)
    assert all('"id"' in m["error"]["message"] for m in refused)
    assert answered.result(2) == {}


def test_notifications_get_no_response(sandbox: Sandbox) -> None:
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {}})
    lines = [*initialize(1), note, note, request(2, "ping")]
    answered = run_server(sandbox, lines)
    assert [m["id"] for m in answered.messages] == [1, 2]


def test_every_request_received_before_eof_is_answered(sandbox: Sandbox) -> None:
    ids = list(range(2, 202))
    lines = [*initialize(1)]
    for rid in ids:
        method = ("tools/list", "ping", "resources/list", "prompts/list")[rid % 4]
        lines.append(request(rid, method))
        lines.append(modern(f"m{rid}", "tools/list"))
    answered = run_server(sandbox, lines)
    assert answered.returncode == 0
    for rid in ids:
        assert "result" in answered[rid]
        assert "result" in answered[f"m{rid}"]


def test_empty_input_exits_cleanly(sandbox: Sandbox) -> None:
    answered = run_server(sandbox, [])
    assert answered.returncode == 0
    assert answered.stdout == ""


def test_a_piped_file_of_saves_is_fully_answered_and_written(sandbox: Sandbox) -> None:
    import sqlite3
    import subprocess

    from tests.server.mcp_process import ENGRAM_MCP, call

    requests = sandbox.root / "requests.jsonl"
    lines = [*initialize(0)]
    lines += [
        call(n, "mem_save", {"title": f"Note {n}", "content": f"body {n}"}) for n in range(1, 81)
    ]
    requests.write_text("\n".join(lines) + "\n")
    with requests.open("rb") as stdin:
        proc = subprocess.run(
            [ENGRAM_MCP], stdin=stdin, capture_output=True, env=sandbox.env(),
            cwd=sandbox.workspace, timeout=120,
        )  # fmt: skip
    assert proc.returncode == 0
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert sorted(a["id"] for a in answers) == list(range(81))
    assert all(not a["result"].get("isError") for a in answers if a["id"])
    db = next(sandbox.data_dir.glob("*.db"))
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM observations").fetchone()[0] == 80
