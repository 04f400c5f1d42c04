"""mem_stats counts the current project unless all_projects is asked for."""

from __future__ import annotations

import anyio

from engram.memory.save import save_observation
from engram.server.app import EngramServer
from engram.server.options import ServerOptions
from engram.store.db import Store
from engram.testing import Sandbox
from tests.server.tool_state import fresh_tool_state


def test_mem_stats_reports_the_current_project_by_default(sandbox: Sandbox) -> None:
    store = Store.open(sandbox.data_dir)
    try:
        save_observation(store, title="Here", content="x", project="workspace")
        save_observation(store, title="There", content="y", project="other-app")
        save_observation(store, title="There too", content="z", project="other-app")
    finally:
        store.close()

    async def stats(arguments: dict[str, object]) -> dict[str, object]:
        result = await EngramServer(ServerOptions()).call_tool("mem_stats", arguments)
        return result["structuredContent"]["data"]  # type: ignore[no-any-return]

    current = anyio.run(stats, {})
    assert current["project"] == "workspace"
    assert current["result"]["observations"] == 1  # type: ignore[index]
    everything = anyio.run(stats, {"all_projects": True})
    assert everything["result"]["observations"] == 3  # type: ignore[index]
    other = anyio.run(stats, {"project": "other-app"})
    assert other["result"]["observations"] == 2  # type: ignore[index]


__all__ = ["fresh_tool_state"]
