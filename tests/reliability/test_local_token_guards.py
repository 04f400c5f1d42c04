"""ENGRAM_HTTP_TOKEN guards every path that deletes, overwrites or moves memories.

A real ``engram serve`` subprocess; MCP over its ``/mcp`` endpoint in both protocol eras. Reads
stay open on loopback; a bind beyond loopback refuses to start without a token and, with one,
guards every route but ``GET /health``.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from engram.testing import Sandbox
from tests.reliability.conftest import Run, assert_one_line_error
from tests.serve.conftest import Client, Server, free_port, save, start_server

TOKEN = "guard-token-0123456789abcdef"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
ACCEPT = "application/json, text/event-stream"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


@pytest.fixture
def guarded(sandbox: Sandbox) -> Iterator[Server]:
    server = start_server(sandbox, env={"ENGRAM_HTTP_TOKEN": TOKEN})
    try:
        yield server
    finally:
        server.stop()


def _events(raw: bytes) -> list[dict[str, Any]]:
    text = raw.decode()
    if text.lstrip().startswith("{"):
        return [json.loads(text)]
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


def _session(api: Client, headers: dict[str, str]) -> dict[str, str]:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    reply = api.post("/mcp", init, headers={"Accept": ACCEPT, **headers})
    assert reply.status == 200, reply.raw
    sent = {
        "Accept": ACCEPT,
        "Mcp-Session-Id": reply.headers.get("mcp-session-id") or reply.headers["Mcp-Session-Id"],
        "MCP-Protocol-Version": "2025-06-18",
        **headers,
    }
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert api.post("/mcp", note, headers=sent).status == 202
    return sent


def _tool(api: Client, headers: dict[str, str], name: str, arguments: dict[str, Any]) -> Any:
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name}}
    body["params"]["arguments"] = arguments
    return api.post("/mcp", body, headers=headers)


def test_patch_and_unpin_need_the_token(guarded: Server) -> None:
    api = guarded.client
    obs = save(api, "tok", "Original title", "original body")
    assert api.put(f"/observations/{obs}/pin").status == 200
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        reply = api.patch(
            f"/observations/{obs}?expected_project=tok", {"content": "x"}, headers=headers
        )
        assert reply.status == 401 and reply.json["code"] == "http.unauthorized"
        assert api.delete(f"/observations/{obs}/pin", headers=headers).status == 401
    kept = api.get(f"/observations/{obs}").json
    assert kept["content"] == "original body" and kept["pinned"]
    assert (
        api.patch(
            f"/observations/{obs}?expected_project=tok", {"content": "mine"}, headers=BEARER
        ).status
        == 200
    )
    assert api.delete(f"/observations/{obs}/pin", headers=BEARER).status == 200
    assert api.get(f"/observations/{obs}").json["content"] == "mine"


def test_mcp_tools_that_damage_memory_need_the_token(guarded: Server) -> None:
    api = guarded.client
    obs = save(api, "tok", "Keep me", "unless authorized")
    save(api, "tok-two", "Other project", "stays where it is")
    legacy = _session(api, {})
    attacks = [
        ("mem_delete", {"id": obs, "expected_project": "tok", "hard_delete": True}),
        ("mem_update", {"id": obs, "expected_project": "tok", "content": "attacker text"}),
        ("mem_merge_projects", {"from": "tok-two", "to": "tok"}),
    ]
    for name, arguments in attacks:
        reply = _tool(api, legacy, name, arguments)
        assert reply.status == 401, (name, reply.raw)
        assert reply.json["code"] == "http.unauthorized" and name in reply.json["error"]
        modern = {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": MODERN_META},
        }
        headers = {"Accept": ACCEPT, "MCP-Protocol-Version": "2026-07-28"}
        assert api.post("/mcp", modern, headers=headers).status == 401, name
        batch = [{"jsonrpc": "2.0", "id": 3, "method": name, "params": arguments}]
        assert api.post("/mcp", batch, headers={"Accept": ACCEPT, **legacy}).status == 401
    assert api.get(f"/observations/{obs}").json["content"] == "unless authorized"
    assert api.get("/observations?project=tok-two").json != []
    # Reads stay open without the token; with it, the delete goes through.
    found = _events(_tool(api, legacy, "mem_search", {"query": "keep", "project": "tok"}).raw)
    assert "Keep me" in json.dumps(found)
    authorized = _session(api, BEARER)
    reply = _tool(api, authorized, "mem_delete", {"id": obs, "expected_project": "tok"})
    assert reply.status == 200 and not _events(reply.raw)[-1]["result"].get("isError")
    assert api.get(f"/observations/{obs}").status == 404


def test_a_wide_bind_without_a_token_refuses_to_start(engram: Run) -> None:
    proc = engram("serve", str(free_port()), "--host", "0.0.0.0", env={"ENGRAM_HTTP_TOKEN": ""})
    assert_one_line_error(proc)
    assert "refusing to bind 0.0.0.0" in proc.stderr
    assert "ENGRAM_HTTP_TOKEN" in proc.stderr


def test_a_wide_bind_warns_what_the_token_protects(engram: Run, sandbox: Sandbox) -> None:
    # Starts on an address nobody can reach from outside (TEST-NET-1 is not assigned here), so
    # the warning is printed and the bind fails: nothing ever listens beyond loopback.
    proc = engram(
        "serve", str(free_port()), "--host", "192.0.2.1", env={"ENGRAM_HTTP_TOKEN": TOKEN}
    )
    assert "every route but GET /health" in proc.stderr
    assert TOKEN not in proc.stderr + proc.stdout


@pytest.fixture
def wide_app(sandbox: Sandbox) -> Iterator[Client]:
    """The app a wide bind serves (token everywhere), run by uvicorn on loopback."""
    import uvicorn

    from engram.http.app import build_app
    from engram.store.db import Store

    store = Store.open(sandbox.data_dir)
    port = free_port()
    app = build_app(store, mcp=False, token_everywhere=True)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    client = Client(port=port)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not server.started:
        time.sleep(0.05)
    try:
        yield client
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        store.close()


def test_a_wide_bind_guards_every_route_but_health(
    wide_app: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENGRAM_HTTP_TOKEN", TOKEN)
    assert wide_app.get("/health").status == 200
    for method, path in [
        ("GET", "/search?q=x&project=p"),
        ("GET", "/observations/recent?project=p"),
        ("POST", "/sessions"),
        ("GET", "/context?project=p"),
        ("GET", "/no/such/route"),
    ]:
        reply = wide_app.request(method, path)
        assert reply.status == 401, (method, path)
        assert reply.json["code"] == "http.unauthorized"
    assert wide_app.get("/health", headers=BEARER).status == 200
    assert wide_app.get("/sessions/recent", headers=BEARER).status == 200


def test_serve_help_names_the_rule() -> None:
    # The CLI's own help mentions that a wide bind needs the token.
    from tests.reliability.conftest import ENGRAM

    out = subprocess.run([str(ENGRAM), "serve", "--help"], capture_output=True, text=True)
    assert "ENGRAM_HTTP_TOKEN" in out.stdout
