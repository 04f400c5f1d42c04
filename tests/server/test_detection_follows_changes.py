"""The project a call reports follows every change to what detection read (issue 27, point 2).

The ``mem_*`` tools remember the detection of their folder and re-check only the stamps of the
files it read (:mod:`engram.memory.detection_cache`). Each scenario of
:mod:`tests.server.detection_changes` changes one of those inputs between two calls, through a
live ``engram-mcp`` and through the tools in-process (where the test also checks that the
detection was remembered before the change, so a cache that ignores that input fails).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engram.memory.detection_cache import REMEMBERED
from engram.server.registry import tool_from
from engram.server.tool_calls import call_now
from engram.testing import Sandbox
from tests.server.detection_changes import SCENARIOS, play
from tests.server.mcp_process import LiveServer, call, initialize


@pytest.fixture
def live(sandbox: Sandbox) -> Iterator[Callable[[Path], Callable[[], dict[str, Any]]]]:
    servers: list[LiveServer] = []

    def start(folder: Path) -> Callable[[], dict[str, Any]]:
        server = LiveServer(sandbox, cwd=folder)
        servers.append(server)
        for line in initialize():
            server.send(line)
        ids = itertools.count(1)

        def search() -> dict[str, Any]:
            answer = server.send(call(next(ids), "mem_search", {"query": "rotation"}))
            assert answer is not None and "result" in answer, answer
            return answer["result"]  # type: ignore[no-any-return]

        return search

    yield start
    for server in servers:
        assert server.close() == 0


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_live_server_follows_the_change(
    sandbox: Sandbox, live: Callable[[Path], Callable[[], dict[str, Any]]], name: str
) -> None:
    play(sandbox, SCENARIOS[name], live)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_remembered_detection_follows_the_change(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    tool = tool_from("engram.server.mem_tools.recall", "mem_search")

    def start(folder: Path) -> Callable[[], dict[str, Any]]:
        monkeypatch.chdir(folder)
        return lambda: call_now(tool, {"query": "rotation"})  # type: ignore[no-any-return]

    def remembered() -> bool:
        data_dir = sandbox.data_dir
        return REMEMBERED.detect() is REMEMBERED.detect() and (
            REMEMBERED.bindings(data_dir) is REMEMBERED.bindings(data_dir)
        )

    play(sandbox, SCENARIOS[name], start, remembered)
