"""A scripted MCP client: drives a real ``engram-mcp`` over stdio, answering its dialogs.

Legacy mode performs the ``initialize`` handshake declaring form elicitation and answers each
server-to-client ``elicitation/create`` with the next scripted reply. Modern mode sends each
request with the 2026-07-28 ``_meta`` envelope.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engram.testing import Sandbox

ENGRAM_MCP = str(Path(sys.executable).parent / "engram-mcp")
MODERN = "2026-07-28"
FORM = {"elicitation": {"form": {}}}

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any] | None] | None


class Client:
    """One running server and the conversation with it."""

    def __init__(
        self,
        sandbox: Sandbox,
        *args: str,
        capabilities: dict[str, Any] | None = None,
        handshake: bool = True,
        env: dict[str, str] | None = None,
    ) -> None:
        self.proc = subprocess.Popen(
            [ENGRAM_MCP, "--project", "demo", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=sandbox.env(**(env or {})),
            cwd=sandbox.workspace,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.next_id = 100
        self.elicitations: list[dict[str, Any]] = []
        if handshake:
            self.request(
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": capabilities if capabilities is not None else FORM,
                    "clientInfo": {"name": "governed-tests", "version": "1"},
                },
            )
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any], reply: Reply = None) -> dict[str, Any]:
        """Send a request; answer dialogs with ``reply``; return the response message."""
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            message = json.loads(self.lines.get(timeout=60))
            if message.get("method") == "elicitation/create":
                self.elicitations.append(message["params"])
                answer = reply(message["params"]) if callable(reply) else reply
                if answer is None:
                    continue  # never answer: the server's timeout must fire
                if "error" in answer:
                    self.send({"jsonrpc": "2.0", "id": message["id"], "error": answer["error"]})
                else:
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": answer})
            elif message.get("id") == rid:
                return message  # type: ignore[no-any-return]

    def call(self, tool: str, arguments: dict[str, Any], reply: Reply = None) -> dict[str, Any]:
        """A legacy tools/call; returns the result (fails on a JSON-RPC error)."""
        message = self.request("tools/call", {"name": tool, "arguments": arguments}, reply)
        assert "result" in message, message
        return message["result"]  # type: ignore[no-any-return]

    def modern_call(
        self,
        tool: str,
        arguments: dict[str, Any],
        capabilities: dict[str, Any] | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """A 2026-07-28 tools/call (``extra``: inputResponses, requestState); the raw message."""
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": (
                capabilities if capabilities is not None else FORM
            ),
        }
        params = {"name": tool, "arguments": arguments, "_meta": meta, **extra}
        return self.request("tools/call", params)

    def close(self) -> None:
        """Close stdin and wait for the server to exit."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def accept(content: dict[str, Any]) -> dict[str, Any]:
    """An ``accept`` reply with form content."""
    return {"action": "accept", "content": content}


def data(result: dict[str, Any]) -> dict[str, Any]:
    """``structuredContent.data`` of a tool result."""
    return result["structuredContent"]["data"]  # type: ignore[no-any-return]
