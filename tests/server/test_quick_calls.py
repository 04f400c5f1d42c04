"""The quick path answers journal ``tools/call`` without the SDK, with the SDK's very bytes.

Two halves prove it: the tool runs through the same code either way, so a read-only call on one
store gives byte-identical lines through both paths; and every answer the quick path writes
(writes included) is what the SDK's own pipeline writes for that result in that era.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from engram.server import registry
from engram.server.options import ServerOptions
from engram.server.quick_calls import RESULT_KEYS
from engram.server.quickstart import QuickStart, load_catalogue
from engram.server.quickstart_build import handshake, sdk_answers, tools_call
from engram.server.registry import Param, ToolSpec
from engram.testing import CLAUDE_META, Sandbox
from tests.server.mcp_process import ENGRAM_MCP, call, initialize, modern, request
from tests.server.test_output_schemas import CALLS, _substitute
from tests.server.tool_state import fresh_tool_state

HANDSHAKES = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MODERN = "2026-07-28"
REPLAY = "zz_quick_replay"
CAPS = "io.modelcontextprotocol/clientCapabilities"
INFO = "io.modelcontextprotocol/clientInfo"
# Calls that change nothing, so both paths can answer them on one store and must agree.
READS: list[tuple[str, dict[str, Any]]] = [
    ("mem_search", {"query": "login"}),
    ("mem_search", {"query": "login", "limit": 500, "colour": "blue"}),
    ("mem_search", {"query": "login", "project": "no-such-project"}),
    ("mem_context", {}),
    ("mem_context", {"limit": 3}),
    ("mem_get_observation", {"id": "$A"}),
    ("mem_get_observation", {"id": 99999}),
    ("mem_timeline", {"observation_id": "$A"}),
    ("mem_suggest_topic_key", {"title": "Rate limiting"}),
    ("mem_current_project", {}),
    ("mem_list_projects", {}),
    ("mem_stats", {}),
    ("mem_save", {"title": ""}),
    ("mem_save", {"title": "x", "content": "y" * (1024 * 1024 + 10)}),
    ("mem_update", {"id": "$A"}),
]


# engram-mcp's main with the modules it ended up importing written to stderr at exit
# (-X importtime misses modules loaded through importlib.import_module, as tools are).
PROBE = """import atexit, sys
atexit.register(lambda: sys.stderr.write("MODULES " + " ".join(sorted(sys.modules)) + "\\n"))
from engram.server.main import main
sys.exit(main([]))
"""


def _serve_and_list_modules(
    sandbox: Sandbox, lines: list[str], **env: str
) -> tuple[list[dict[str, Any]], set[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=("\n".join(lines) + "\n").encode(),
        capture_output=True,
        env=sandbox.env(**env),
        cwd=sandbox.workspace,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    marker = [line for line in proc.stderr.decode().splitlines() if line.startswith("MODULES ")]
    return [json.loads(line) for line in proc.stdout.splitlines()], set(marker[-1].split()[1:])


def _catalogue() -> dict[str, Any]:
    catalogue = load_catalogue()
    assert catalogue is not None
    return catalogue


def _opened(version: str, options: ServerOptions | None = None) -> QuickStart:
    quick = QuickStart(_catalogue(), options or ServerOptions())
    if version != MODERN:
        for line in handshake(version):
            assert quick.answer(json.dumps(line).encode()) is not None
    return quick


def _line(rid: int, name: str, arguments: Any, version: str) -> dict[str, Any]:
    return tools_call(rid, name, arguments, version if version == MODERN else None)


def _sdk(line: dict[str, Any], version: str) -> bytes:
    if version == MODERN:
        return sdk_answers([line])[0]
    return sdk_answers([*handshake(version), line])[1]


def _seed() -> dict[str, Any]:
    """Two memories saved through the quick path; their ids as ``$A`` and ``$B``."""
    quick = _opened("2025-11-25")
    names: dict[str, Any] = {}
    for n, title in enumerate(("Rate limit login", "Rate limit login v2")):
        line = _line(n, "mem_save", {"title": title, "content": "**What** limits"}, "2025-11-25")
        answer = quick.answer(json.dumps(line).encode())
        assert answer
        data = json.loads(answer)["result"]["structuredContent"]["data"]
        names["$B" if n else "$A"] = data["result"]["id"]
    return names


@pytest.fixture
def repo(sandbox: Sandbox) -> Sandbox:
    subprocess.run(["git", "init", "-q"], cwd=sandbox.workspace, check=True)
    return sandbox


@pytest.fixture
def replay_tool() -> Iterator[list[Any]]:
    """A tool that returns a recorded result as it is, so the SDK serializes exactly it."""
    recorded: list[Any] = []
    spec = ToolSpec(
        REPLAY,
        "test only",
        (Param("n", "integer", "which"),),
        lambda call: recorded[call.get("n")],
        "mem",
        frozenset({"all"}),
        read_only=True,
    )
    registry.register(spec)
    yield recorded
    registry._TOOLS.pop(REPLAY, None)
    registry._ORIGIN.pop(REPLAY, None)


def test_every_call_it_serves_is_written_as_the_sdk_writes_it(
    repo: Sandbox, replay_tool: list[Any]
) -> None:
    names = _seed()
    journal = [(n, a) for n, a in CALLS if n.startswith("mem_")] + READS
    served = set()
    for version in [*HANDSHAKES, MODERN]:
        quick = _opened(version)
        for rid, (name, arguments) in enumerate(journal, start=10):
            line = _line(rid, name, _substitute(arguments, names), version)
            answer = quick.answer(json.dumps(line).encode())
            assert answer is not None, f"{name} was handed over"
            served.add(name)
            # What the handler returned: the SDK adds resultType and the stamp itself.
            result = json.loads(answer)["result"]
            replay_tool.append({k: v for k, v in result.items() if k in RESULT_KEYS})
            again = _line(rid, REPLAY, {"n": len(replay_tool) - 1}, version)
            assert answer.rstrip(b"\n") == _sdk(again, version), (version, name)
    quick_tools = {t["name"] for t in _catalogue()["tools"] if t["quick"]}
    journal_tools = {t.name for t in registry.all_tools() if t.family == "mem"} - {REPLAY}
    assert served == quick_tools == journal_tools


@pytest.mark.parametrize("version", [*HANDSHAKES, MODERN])
def test_read_only_calls_give_the_sdk_bytes_on_one_store(repo: Sandbox, version: str) -> None:
    names = _seed()
    quick = _opened(version)
    for rid, (name, arguments) in enumerate(READS, start=10):
        line = _line(rid, name, _substitute(arguments, names), version)
        answer = quick.answer(json.dumps(line).encode())
        assert answer is not None, f"{name} was handed over"
        assert answer.rstrip(b"\n") == _sdk(line, version), (version, name)


def test_claude_codes_envelope_is_served_with_the_sdk_bytes(repo: Sandbox) -> None:
    names = _seed()
    quick = QuickStart(_catalogue(), ServerOptions())
    for rid, (name, arguments) in enumerate(READS, start=10):
        params = {"name": name, "arguments": _substitute(arguments, names), "_meta": CLAUDE_META}
        line = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
        answer = quick.answer(json.dumps(line).encode())
        assert answer is not None, f"{name} was handed over"
        assert answer.rstrip(b"\n") == sdk_answers([line])[0], name


def test_calls_it_cannot_answer_exactly_go_to_the_sdk(repo: Sandbox) -> None:
    before = _opened("2025-11-25")
    modern_meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    others = [
        {"name": "engram_load", "arguments": {}},  # governed: needs the SDK
        {"name": "mem_search", "arguments": ["login"]},  # not an object: a JSON-RPC error
        {"name": "mem_search", "arguments": None},
        {"name": "mem_search", "arguments": {}, "_meta": {"progressToken": 1}},
        {"name": "mem_search", "arguments": {}, "task": {}},
        {"name": "mem_search", "_meta": {**modern_meta, "extra": 1}},
        {"name": 7, "arguments": {}},
        {"name": "mem_search", "_meta": {**modern_meta, CAPS: {"elicitation": {"form": {"x": 1}}}}},
        {
            "name": "mem_search",
            "_meta": {**modern_meta, INFO: {"name": "a", "version": "1", "icons": []}},
        },
        {"name": "no_such_tool", "arguments": {}},
    ]
    for params in others:
        line = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        assert before.answer(json.dumps(line).encode()) is None, params
    # Before a handshake only the 2026-07-28 envelope is served; --tools limits what is served.
    fresh = QuickStart(_catalogue(), ServerOptions())
    assert fresh.answer(json.dumps(_line(1, "mem_search", {}, "2025-11-25")).encode()) is None
    agent = _opened("2025-11-25", ServerOptions(tools=("mem_search",)))
    assert agent.answer(json.dumps(_line(1, "mem_context", {}, "2025-11-25")).encode()) is None
    assert agent.answer(json.dumps(_line(1, "mem_search", {"query": "x"}, "2025-11-25")).encode())


def test_the_first_call_loads_neither_the_sdk_nor_other_tool_families(repo: Sandbox) -> None:
    lines = [*initialize(0), request(1, "tools/list"), call(2, "mem_context", {})]
    lines += [call(3, "mem_save", {"title": "Quick", "content": "saved before the SDK"})]
    lines += [call(4, "mem_search", {"query": "quick"})]
    lines += [modern(5, "tools/call", {"name": "mem_get_observation", "arguments": {"id": 1}})]
    answers, modules = _serve_and_list_modules(repo, lines, ENGRAM_SEARCH="lexical")
    assert [a["id"] for a in answers] == [0, 1, 2, 3, 4, 5]
    assert all(a["result"]["structuredContent"]["ok"] for a in answers[2:]), answers
    assert "saved before the SDK" in json.dumps(answers[4]["result"])
    assert {"engram.server.mem_tools.recall", "engram.server.mem_tools.journal"} <= modules
    heavy = [
        m
        for m in modules
        if m.split(".")[0] in ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "numpy")
        or m.startswith(("engram.server.app", "engram.server.governed", "engram.server.dispatch"))
        or m.startswith(("engram.server.mem_tools.curation", "engram.server.mem_tools.projects"))
    ]
    assert heavy == []


def test_a_connection_the_sdk_takes_over_keeps_what_the_quick_path_wrote(repo: Sandbox) -> None:
    lines = [
        *initialize(0),
        call(1, "mem_save", {"title": "Written quickly", "content": "**What** before the SDK"}),
        request(2, "prompts/list"),
        call(3, "mem_search", {"query": "quickly"}),
        call(4, "engram_status", {}),
    ]
    proc = subprocess.run(
        [ENGRAM_MCP],
        input=("\n".join(lines) + "\n").encode(),
        capture_output=True,
        env=repo.env(),
        cwd=repo.workspace,
        timeout=120,
    )
    answers = {a["id"]: a for a in map(json.loads, proc.stdout.splitlines())}
    assert sorted(answers) == [0, 1, 2, 3, 4]
    assert answers[1]["result"]["structuredContent"]["ok"] is True
    assert "Written quickly" in json.dumps(answers[3]["result"])
    assert answers[4]["result"]["structuredContent"]["ok"] is True


def test_the_listing_order_does_not_depend_on_which_family_loaded_first() -> None:
    first = registry.tool_from("engram.server.mem_tools.recall", "mem_search")
    assert first is not None and first.name == "mem_search"
    assert registry.tool_from("engram.server.mem_tools.recall", "mem_save") is None
    assert registry.tool_from("os", "mem_search") is None
    names = [t.name for t in registry.all_tools()]
    listed = [t["name"] for t in _catalogue()["tools"]]
    assert names[: len(listed)] == listed


__all__ = ["fresh_tool_state"]


def _sdk_connection(lines: list[dict[str, Any]], front: bool) -> list[bytes]:
    """What ``_serve_sdk`` writes for ``lines`` after a quick start handed over at the first,
    with or without the quick path kept in front."""
    from engram.server.main import _serve_sdk
    from engram.server.quickstart import ReplayReader

    quick = QuickStart(_catalogue(), ServerOptions())
    stream = io.BytesIO(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    writer = io.BytesIO()
    handover = quick.serve(stream, writer)
    assert handover is not None
    reader = ReplayReader(handover.lines, stream)
    after = quick.after_handover if front else None
    _serve_sdk(ServerOptions(), reader, writer, silent_ids=handover.silent_ids, front=after)
    return sorted(writer.getvalue().splitlines())


def test_after_a_handover_the_quick_path_answers_the_same_bytes(repo: Sandbox) -> None:
    names = _seed()
    lines = [*handshake("2025-06-18"), {"jsonrpc": "2.0", "id": 1, "method": "ping"}]
    for rid, (name, arguments) in enumerate(READS, start=10):
        lines.append(_line(rid, name, _substitute(arguments, names), "2025-06-18"))
        lines.append(_line(rid + 100, name, _substitute(arguments, names), MODERN))
    lines.append({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert _sdk_connection(lines, front=True) == _sdk_connection(lines, front=False)


def test_after_a_handover_journal_calls_still_skip_the_sdk_tool_registry(repo: Sandbox) -> None:
    lines = [*initialize(0), request(1, "ping"), call(2, "mem_search", {"query": "none"})]
    answers, modules = _serve_and_list_modules(repo, lines, ENGRAM_SEARCH="lexical")
    assert [a["id"] for a in answers] == [0, 1, 2]
    assert answers[2]["result"]["structuredContent"]["ok"] is True
    assert "mcp" in modules  # the SDK serves ping...
    # ...but the search ran on the quick path: the SDK's registry would load every family.
    assert "engram.server.mem_tools.recall" in modules
    assert "engram.server.mem_tools.curation" not in modules
    assert "engram.server.governed" not in modules
