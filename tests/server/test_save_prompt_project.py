"""mem_save_prompt honours ``project`` only during ambiguity recovery."""

from __future__ import annotations

import anyio

from engram.memory.save import save_observation
from engram.server.app import EngramServer
from engram.server.options import ServerOptions
from engram.store.db import Store
from engram.testing import Sandbox
from tests.server.tool_state import fresh_tool_state


def test_an_explicit_project_is_ignored_outside_recovery(sandbox: Sandbox) -> None:
    store = Store.open(sandbox.data_dir)
    try:
        save_observation(store, title="Elsewhere", content="x", project="other-app")
    finally:
        store.close()

    async def scenario() -> dict[str, object]:
        server = EngramServer(ServerOptions())
        result = await server.call_tool(
            "mem_save_prompt", {"content": "add rate limiting", "project": "other-app"}
        )
        return result["structuredContent"]  # type: ignore[no-any-return]

    content = anyio.run(scenario)
    assert content["ok"] is True
    assert content["data"]["project"] == "workspace"  # type: ignore[index]
    assert content["data"]["result"]["prompt"]["project"] == "workspace"  # type: ignore[index]
    assert any("project was ignored" in d for d in content["diagnostics"])  # type: ignore[attr-defined]


__all__ = ["fresh_tool_state"]
