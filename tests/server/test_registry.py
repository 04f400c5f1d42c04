"""Registry details a host notices: always-load marking and argument checking."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engram.errors import EngramError
from engram.server.app import ALWAYS_LOAD_META, EngramServer
from engram.server.envelope import ToolOutcome
from engram.server.options import ServerOptions
from engram.server.registry import Param, ToolCall, ToolSpec


def _load_tool() -> ToolSpec:
    def run(call: ToolCall) -> ToolOutcome:
        return ToolOutcome("loaded", {})

    return ToolSpec(
        name="engram_load",
        description="Route and return memory for a task.",
        params=(Param("query", "string", "The task"),),
        run=run,
        family="engram",
        profiles=frozenset({"governed"}),
        read_only=True,
    )


@pytest.mark.parametrize("always_load", [True, False])
def test_always_load_marks_only_engram_load(always_load: bool) -> None:
    server = EngramServer(ServerOptions(always_load=always_load))
    server._tools = {"engram_load": _load_tool()}
    [listed] = server.list_tools()
    assert listed.get("_meta", {}).get(ALWAYS_LOAD_META) is (True if always_load else None)


def test_argument_checks_name_the_argument() -> None:
    spec = ToolSpec(
        name="t",
        description="",
        params=(
            Param("n", "integer", "", required=True, minimum=1),
            Param("s", "string", "", enum=("a", "b")),
            Param("budget", "integer", "", lenient=True, minimum=1),
        ),
        run=lambda call: None,
        family="mem",
        profiles=frozenset(),
        read_only=True,
    )
    assert spec.bind({"n": 2.0}).arguments == {"n": 2}
    for bad, named in (({"n": 1.5}, "'n'"), ({"n": True}, "'n'"), ({"n": 0}, "'n'"),
                       ({"n": 1, "s": "c"}, "'s'"), ({}, "'n'")):  # fmt: skip
        with pytest.raises(EngramError) as caught:
            spec.bind(bad)
        assert named in caught.value.message
    lenient = spec.bind({"n": 1, "budget": float("nan"), "extra": 1})
    assert "budget" not in lenient.arguments and lenient.notes and lenient.ignored == ["extra"]


def test_stray_output_after_claiming_stdio_goes_to_stderr() -> None:
    script = (
        "import os, sys\n"
        "from engram.server.stdio import claim_stdio\n"
        "reader, wire = claim_stdio()\n"
        "print('stray print')\n"
        "os.write(1, b'stray fd write\\n')\n"
        'wire.write(b\'{"jsonrpc": "2.0"}\\n\')\n'
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert result.stdout == '{"jsonrpc": "2.0"}\n'
    assert "stray print" in result.stderr and "stray fd write" in result.stderr
