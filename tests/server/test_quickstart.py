"""The quick start serves the SDK's own answers to initialize and tools/list, byte for byte.

``engram/server/quickstart.json`` is generated from the live SDK server; when a tool, the
instructions or the SDK change, regenerate it on purpose:
    ENGRAM_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/server/test_quickstart.py
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engram.server.options import ServerOptions
from engram.server.quickstart import CATALOGUE, QuickStart, load_catalogue
from engram.server.quickstart_build import (
    build_catalogue,
    handshake,
    render,
    sdk_answers,
    tools_list,
)
from engram.testing import CLAUDE_META, Sandbox
from tests.server.mcp_process import ENGRAM_MCP, call, initialize, request

VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "1999-01-01"]
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"roots": {"listChanged": True}},
    "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "2.0"},
}
SELECTIONS = [
    ServerOptions(),
    ServerOptions(tools=("agent",)),
    ServerOptions(tools=("governed",), always_load=True),
    ServerOptions(tools=("mem_save", "no_such_tool", "admin")),
    ServerOptions(always_load=True),
]


def test_the_catalogue_is_what_the_live_sdk_answers() -> None:
    current = render(build_catalogue())
    if os.environ.get("ENGRAM_UPDATE_GOLDEN") == "1":
        CATALOGUE.write_text(current, encoding="utf-8")
    assert current == CATALOGUE.read_text(encoding="utf-8"), (
        "engram/server/quickstart.json is stale (a tool, the instructions or the SDK changed): "
        "regenerate it with ENGRAM_UPDATE_GOLDEN=1 (or python -m engram.server.quickstart_build)"
    )
    assert load_catalogue() is not None, "the catalogue's fingerprint does not match the sources"


def _quick(lines: list[dict[str, Any]], options: ServerOptions) -> list[bytes]:
    catalogue = load_catalogue()
    assert catalogue is not None
    reader = io.BytesIO(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    writer = io.BytesIO()
    handover = QuickStart(catalogue, options).serve(reader, writer)
    assert handover is None, "the quick start handed over a message it should answer"
    return writer.getvalue().splitlines()


def _openings() -> list[list[dict[str, Any]]]:
    openings = [[*handshake(v, rid=7), tools_list(8)] for v in VERSIONS]
    fancy = handshake("2025-06-18", rid=0)
    fancy[0]["id"] = "start-1"
    fancy[0]["params"]["capabilities"] = {"roots": {"listChanged": True}, "sampling": {}}
    fancy[0]["params"]["clientInfo"]["title"] = "Probe — client"
    openings.append([*fancy, {"jsonrpc": "2.0", "id": "list", "method": "tools/list"}])
    modern = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": MODERN_META}}
    openings.append([tools_list(1, "2026-07-28"), modern])
    openings.append([*handshake("2025-11-25"), tools_list(2, "2026-07-28"), tools_list(3)])
    claude = [
        {"jsonrpc": "2.0", "id": "probe-1", "method": m, "params": {"_meta": CLAUDE_META}}
        for m in ("server/discover", "tools/list")
    ]
    openings.append(claude)
    return openings


@pytest.mark.parametrize("options", SELECTIONS, ids=lambda o: ",".join(o.tools))
def test_quick_answers_are_the_sdk_answers_byte_for_byte(options: ServerOptions) -> None:
    for lines in _openings():
        assert _quick(lines, options) == sdk_answers(lines, options), lines


def test_anything_else_is_handed_to_the_sdk_after_a_silent_replay() -> None:
    catalogue = load_catalogue()
    assert catalogue is not None
    quick = QuickStart(catalogue, ServerOptions())
    lines = [*handshake("2025-11-25"), {"jsonrpc": "2.0", "id": 5, "method": "ping"}]
    reader = io.BytesIO(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    handover = quick.serve(reader, io.BytesIO())
    assert handover is not None
    replayed = [json.loads(line) for line in handover.lines]
    assert [m.get("method") for m in replayed] == [
        "initialize",
        "notifications/initialized",
        "ping",
    ]
    assert replayed[0]["id"] in handover.silent_ids
    for odd in ['{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', "not json", "[]"]:
        assert QuickStart(catalogue, ServerOptions()).answer(odd.encode()) is None


def test_a_catalogue_from_other_sources_is_never_served(tmp_path: Path) -> None:
    stale = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    stale["fingerprint"] = "0.0.0/0/00000000"
    path = tmp_path / "quickstart.json"
    path.write_text(json.dumps(stale), encoding="utf-8")
    assert load_catalogue(path) is None
    path.write_text("{", encoding="utf-8")
    assert load_catalogue(path) is None


def test_engram_mcp_answers_the_opening_without_the_sdk(sandbox: Sandbox) -> None:
    lines = [*initialize(0), request(1, "tools/list")]
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", ENGRAM_MCP],
        input=("\n".join(lines) + "\n").encode(),
        capture_output=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=120,
    )
    assert proc.returncode == 0
    imported = [line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines()]
    heavy = [
        m
        for m in imported
        if m.split(".")[0] in ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio")
        or m.startswith(("engram.memory", "engram.store", "engram.server.app"))
    ]
    assert heavy == []
    assert proc.stdout.splitlines() == sdk_answers([json.loads(line) for line in lines])
    assert not sandbox.data_dir.exists()


def test_the_sdk_takes_over_mid_connection(sandbox: Sandbox) -> None:
    lines = [
        *initialize(0),
        request(1, "tools/list"),
        call(2, "mem_save", {"title": "Quick start handed over", "content": "a real save"}),
        request(3, "resources/list"),
        request(4, "tools/list"),
        call(5, "mem_search", {"query": "handed"}),
    ]
    proc = subprocess.run(
        [ENGRAM_MCP, "--tools=agent,no_such_tool"],
        input=("\n".join(lines) + "\n").encode(),
        capture_output=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=120,
    )
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a["id"] for a in answers] == [0, 1, 2, 3, 4, 5]
    assert answers[2]["result"]["structuredContent"]["ok"] is True
    assert "Quick start handed over" in json.dumps(answers[5]["result"])
    assert answers[1]["result"] == answers[4]["result"]
    assert "engram://index" in json.dumps(answers[3]["result"])
    # The --tools note is printed once, whichever path lists the tools first.
    assert proc.stderr.decode().count("ignoring unknown tool 'no_such_tool'") == 1


def test_always_load_marks_engram_load_in_the_quick_answer() -> None:
    lines = [*handshake("2025-11-25"), tools_list(1)]
    tools = json.loads(_quick(lines, replace(ServerOptions(), always_load=True))[1])["result"]
    load = next(t for t in tools["tools"] if t["name"] == "engram_load")
    assert load["_meta"]["anthropic/alwaysLoad"] is True
