"""Run the real ``engram-mcp`` as a subprocess and talk raw JSON-RPC to it (and set up the
git repositories, confirmed with the real ``engram init --confirm``, it is started in)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from engram.testing import Sandbox

ENGRAM_MCP = str(Path(sys.executable).parent / "engram-mcp")
ENGRAM = str(Path(sys.executable).parent / "engram")
MODERN = "2026-07-28"


def envelope(version: str = MODERN, capabilities: bool = True) -> dict[str, Any]:
    """The 2026-07-28 per-request ``_meta``."""
    meta: dict[str, Any] = {"io.modelcontextprotocol/protocolVersion": version}
    if capabilities:
        meta["io.modelcontextprotocol/clientCapabilities"] = {}
    return meta


def request(rid: Any, method: str, params: dict[str, Any] | None = None) -> str:
    """One JSON-RPC request line."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        body["params"] = params
    return json.dumps(body)


def modern(rid: Any, method: str, params: dict[str, Any] | None = None, **env: Any) -> str:
    """A request carrying the 2026-07-28 envelope."""
    return request(rid, method, {**(params or {}), "_meta": envelope(**env)})


def initialize(rid: Any = 0, version: str = "2025-11-25") -> list[str]:
    """The legacy handshake: initialize + notifications/initialized."""
    init = request(
        rid,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "engram-tests", "version": "1"},
        },
    )
    return [init, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]


def call(rid: Any, tool: str, arguments: Any) -> str:
    """A legacy tools/call line."""
    return request(rid, "tools/call", {"name": tool, "arguments": arguments})


class Exchange:
    """What one run of the server answered: responses by id, and the raw streams."""

    def __init__(self, proc: subprocess.CompletedProcess[bytes]) -> None:
        self.returncode = proc.returncode
        self.stdout = proc.stdout.decode("utf-8")
        self.stderr = proc.stderr.decode("utf-8", errors="replace")
        self.messages = [json.loads(line) for line in self.stdout.splitlines()]
        self.by_id = {json.dumps(m.get("id")): m for m in self.messages}

    def __getitem__(self, rid: Any) -> dict[str, Any]:
        return self.by_id[json.dumps(rid)]

    def result(self, rid: Any) -> dict[str, Any]:
        """The result of request ``rid`` (fails the test on an error response)."""
        message = self[rid]
        assert "result" in message, message
        return message["result"]  # type: ignore[no-any-return]

    def error(self, rid: Any) -> dict[str, Any]:
        """The error of request ``rid``."""
        message = self[rid]
        assert "error" in message, message
        return message["error"]  # type: ignore[no-any-return]

    def structured(self, rid: Any) -> dict[str, Any]:
        """``structuredContent`` of a tools/call result."""
        return self.result(rid)["structuredContent"]  # type: ignore[no-any-return]


def run_server(
    sandbox: Sandbox,
    lines: list[str],
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    command: list[str] | None = None,
) -> Exchange:
    """Pipe ``lines`` into a fresh server, close stdin, and collect everything it answers."""
    proc = subprocess.run(
        [*(command or [ENGRAM_MCP]), *args],
        input=("\n".join(lines) + "\n").encode("utf-8"),
        capture_output=True,
        env=sandbox.env(**(env or {})),
        cwd=cwd or sandbox.workspace,
        timeout=120,
    )
    return Exchange(proc)


class LiveServer:
    """An interactive server: send a request, read its answer (for multi-step flows)."""

    def __init__(self, sandbox: Sandbox, *args: str, cwd: Path | None = None) -> None:
        self.proc = subprocess.Popen(
            [ENGRAM_MCP, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=sandbox.env(),
            cwd=cwd or sandbox.workspace,
        )

    def send(self, line: str) -> dict[str, Any] | None:
        """Write one line; return the next response line for a request (None for notifications)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line.encode("utf-8") + b"\n")
        self.proc.stdin.flush()
        if "id" not in json.loads(line):
            return None
        return json.loads(self.proc.stdout.readline())  # type: ignore[no-any-return]

    def close(self) -> int:
        """Close stdin and wait for the process to exit."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=60)


def engram(sandbox: Sandbox, folder: Path, *args: str) -> None:
    """Run the ``engram`` CLI in ``folder``; it must succeed."""
    done = subprocess.run(
        [ENGRAM, *args],
        cwd=folder,
        env=sandbox.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def git_repo(
    sandbox: Sandbox, relative: str, *, remote: str | None = None, confirm: bool = True
) -> Path:
    """A fresh git repository at ``sandbox.root / relative`` (with ``remote`` as origin),
    confirmed with ``engram init --confirm`` unless ``confirm`` is False."""
    folder = sandbox.root / relative
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    if remote:
        subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", remote], check=True)
    if confirm:
        engram(sandbox, folder, "init", "--confirm")
    return folder


def call_tools(sandbox: Sandbox, folder: Path, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """The tools/call results of ``calls`` (tool, arguments), made in order by one fresh server
    started in ``folder`` (which must exit cleanly)."""
    lines = initialize() + [call(i + 1, tool, args) for i, (tool, args) in enumerate(calls)]
    exchange = run_server(sandbox, lines, cwd=folder)
    assert exchange.returncode == 0, exchange.stderr
    return [exchange.result(i + 1) for i in range(len(calls))]
