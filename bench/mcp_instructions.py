"""Instructions per ``mem_search`` over stdio beside the same search in-process (callgrind).

CPU time on a shared machine moves with the load and with cold caches (the server wakes up
after other processes ran; an in-process baseline runs hot). An instruction count does not, so
``bench/mcp_bench.py --instructions N`` also counts, under valgrind's callgrind, what one
``mem_search`` costs: the server answering N searches minus the same server answering none
(start-up, the handshake and a warm-up search cancel out), divided by N; and the same for the
search through ``engram.memory.search`` and for the ``mem_search`` tool, both in-process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hook_bench import instructions

# In-process: warm up, then the queries of argv[1] (a JSON list) through search or the tool.
IN_PROCESS = """
import json, sys
queries = json.loads(sys.argv[1])
if sys.argv[2] == "search":
    from engram.memory.search import search
    from engram.store.db import Store
    store = Store.open()
    run = lambda q: search(store, q, project=sys.argv[3], limit=10)
else:
    from engram.server.registry import tool_from
    from engram.server.tool_calls import call_now
    tool = tool_from("engram.server.mem_tools.recall", "mem_search")
    run = lambda q: call_now(tool, {"query": q})
run("warmup")
for q in queries:
    run(q)
"""


def _server_input(init: dict[str, Any], queries: list[str]) -> bytes:
    lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    for n, query in enumerate(["warmup", *queries], start=1):
        params = {"name": "mem_search", "arguments": {"query": query}}
        lines.append({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def per_call(
    server: list[str],
    init: dict[str, Any],
    queries: list[str],
    env: dict[str, str],
    folder: Path,
    project: str,
) -> dict[str, float] | None:
    """Instructions per search: server, in-process search, in-process tool (None without
    valgrind)."""
    # One plain run first: a process that opens the store after saves (the bench's mem_save
    # calls) brings the vector file up to date, and only the first counted run would pay it.
    subprocess.run(
        server, input=_server_input(init, queries[:1]), env=env, cwd=folder, capture_output=True
    )
    out: dict[str, float] = {}
    for label in ("server", "search", "tool"):
        counts = []
        for batch in (queries, []):
            if label == "server":
                count = instructions(server, _server_input(init, batch), env, folder)
            else:
                argv = [sys.executable, "-c", IN_PROCESS, json.dumps(batch), label, project]
                count = instructions(argv, b"", env, folder)
            if count is None:
                return None
            counts.append(count)
        out[label] = (counts[0] - counts[1]) / max(1, len(queries))
    return out


def report(figures: dict[str, float] | None, calls: int) -> None:
    """One line: the three counts and the ratios."""
    if figures is None:
        print("  instructions: valgrind not found (apt-get install valgrind to count them)")
        return
    server, search, tool = figures["server"], figures["search"], figures["tool"]
    print(
        f"  instructions per mem_search (callgrind, {calls} calls minus none): server "
        f"{server / 1e6:.2f}M | in-process search {search / 1e6:.2f}M | ratio "
        f"{server / search:.2f}x (target <= 1.3x) | tool in-process {tool / 1e6:.2f}M, "
        f"server / tool {server / tool:.2f}x"
    )
