"""A minimal MCP client over a child's stdio, for benchmarks: one JSON-RPC line per message.

It measures what a host pays: spawn -> ``initialize`` -> ``tools/list`` answered (wall time),
and, once the child has exited, its CPU time and peak RSS from ``wait4`` (so only that
process and none of the other servers measured in the same run).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from pathlib import Path
from typing import Any

PROTOCOL = "2025-06-18"  # known to every server compared (newer SDKs accept it too)


class ServerGone(RuntimeError):
    """The server closed stdout or missed the deadline."""


class StdioServer:
    """One running MCP server, spoken to over its stdin/stdout."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )
        assert self.proc.stdout is not None
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        self._buffer = b""
        self._next_id = 0

    def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 120.0
    ) -> Any:
        """Send one request and return its result (raises on a JSON-RPC error)."""
        self._next_id += 1
        rid = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == rid and ("result" in reply or "error" in reply):
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def notify(self, method: str) -> None:
        """Send a notification."""
        self._send({"jsonrpc": "2.0", "method": method})

    def open_session(self) -> list[dict[str, Any]]:
        """The host's opening: initialize, notifications/initialized, tools/list."""
        self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "engram-peers-bench", "version": "1"},
            },
        )
        self.notify("notifications/initialized")
        return list(self.request("tools/list")["tools"])

    def call(self, tool: str, arguments: dict[str, Any], timeout: float = 120.0) -> Any:
        """One ``tools/call``; a tool error raises."""
        result = self.request("tools/call", {"name": tool, "arguments": arguments}, timeout)
        if result.get("isError"):
            raise RuntimeError(f"{tool} failed: {json.dumps(result)[:300]}")
        return result

    def close(self) -> tuple[float, int]:
        """Close stdin, wait for the exit; return (CPU seconds, peak RSS in KiB)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        deadline = time.monotonic() + 30
        while True:
            pid, _status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                self.proc.kill()
                pid, _status, usage = os.wait4(self.proc.pid, 0)
                break
            time.sleep(0.005)
        self.proc.returncode = 0  # reaped above; keep Popen from waiting again
        self._selector.close()
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        return usage.ru_utime + usage.ru_stime, usage.ru_maxrss

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def _read_message(self, deadline: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                raise ServerGone("no answer before the deadline")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                raise ServerGone("the server closed stdout")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line) if line.strip() else {}
