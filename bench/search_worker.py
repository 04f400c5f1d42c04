"""The same search in a process that waits for each query on a pipe, as the server does.

A process that sleeps between requests wakes with cold caches: on this machine a 1k search
costs about 1.3 ms of CPU back to back and 2.5 ms with 5 ms of idle between searches, in any
process. The server pays that on every call and an in-process loop does not, so
``bench/mcp_bench.py`` also runs the search in a child that, like the server, reads each query
from a pipe and answers one line: server CPU against that child is the MCP layer's own share.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from processes import cpu_seconds

CHILD = """
import sys
from engram.memory.search import search
from engram.store.db import Store
store, project = Store.open(sys.argv[1]), sys.argv[2]
for line in sys.stdin.buffer:
    search(store, line.decode("utf-8").rstrip("\\n"), project=project, limit=10)
    sys.stdout.buffer.write(b"ok\\n")
    sys.stdout.buffer.flush()
"""


class SearchWorker:
    """A child process running ``engram.memory.search`` for each query line it is sent."""

    def __init__(self, data_dir: Path, project: str, warm_up: Sequence[str] = ("warmup",)) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(data_dir), project],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.calls = 0
        for query in warm_up:  # not measured: what the first searches load
            self.run(query)
        self.start, self.calls = cpu_seconds(self.proc.pid), 0

    def run(self, query: str) -> None:
        """One search in the child; waits for its answer."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(query.replace("\n", " ").encode("utf-8") + b"\n")
        self.proc.stdin.flush()
        if self.proc.stdout.readline() != b"ok\n":
            raise SystemExit("the search worker failed (see its stderr)")
        self.calls += 1

    def per_call(self) -> float:
        """The child's CPU seconds per search since the warm-up; stops the child."""
        used = cpu_seconds(self.proc.pid) - self.start
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        return used / max(1, self.calls)
