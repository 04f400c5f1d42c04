"""The stdio line transport: one JSON-RPC message per line in, one per line out.

What it adds to the SDK's stdio transport:

- a line that is not JSON gets a -32700 response (``id: null``) and serving goes on; a JSON value
  that is not a JSON-RPC message gets -32600 (with its id when it has one);
- when stdin closes, every request already received is answered before the process exits (the
  SDK's dispatcher cancels in-flight handlers at EOF, so we hold its input open until the last
  response has been written);
- the quick path stays in front once the SDK serves the connection (``front``): a line it
  answers exactly (``tools/list``, a journal ``tools/call``) never reaches the SDK, so those
  calls cost what their work costs on every connection;
- stdout carries only our JSON-RPC lines: fd 1 is pointed at stderr while we serve, so a stray
  ``print`` in a dependency cannot corrupt the wire.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Collection, Coroutine
from typing import Any, BinaryIO, Protocol

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from engram.server.quickstart import claim_stdio

__all__ = ["LineTransport", "claim_stdio"]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

# How long to wait, after stdin closes, for requests still being served.
DRAIN_TIMEOUT_S = 120.0


class ReadsLines(Protocol):
    """Anything with a blocking binary ``readline`` (stdin, or the quick start's replay)."""

    def readline(self) -> bytes: ...


Serve = Callable[
    [MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]],
    Coroutine[Any, Any, None],
]


class LineTransport:
    """Moves JSON-RPC lines between two binary streams and the SDK dispatcher.

    Args:
        reader: where requests arrive (stdin's binary buffer, or the quick start's replay).
        writer: where responses go (a private duplicate of stdout).
        silent_ids: request ids whose responses are dropped, not written.
    """

    def __init__(
        self,
        reader: ReadsLines,
        writer: BinaryIO,
        silent_ids: Collection[Any] = (),
        front: Callable[[bytes], bytes | None] | None = None,
    ) -> None:
        self.reader = reader
        self.writer = writer
        # The quick path's answers, tried first for every line not replayed from the handover.
        self.front = front
        # Answers to requests the quick start replays (the client was already answered).
        self.silent_ids = frozenset(silent_ids)
        self.pending: Counter[Any] = Counter()
        self.eof = False
        self.drained = anyio.Event()

    async def run(self, serve: Serve) -> None:
        """Serve until stdin closes and every received request is answered."""
        to_server, server_in = anyio.create_memory_object_stream[SessionMessage | Exception](64)
        server_out, from_server = anyio.create_memory_object_stream[SessionMessage](64)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._write_loop, from_server)
            tg.start_soon(serve, server_in, server_out)
            await self._read_loop(to_server)

    async def _read_loop(
        self, to_server: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        async with to_server:
            while True:
                line = await anyio.to_thread.run_sync(self.reader.readline, abandon_on_cancel=True)
                if not line:
                    break
                if self._answered_in_front(line):
                    continue
                message = self._decode(line)
                if message is not None:
                    await to_server.send(SessionMessage(message))
            self.eof = True
            if not self.pending:
                self.drained.set()
            with anyio.move_on_after(DRAIN_TIMEOUT_S):
                await self.drained.wait()

    def _answered_in_front(self, line: bytes) -> bool:
        if self.front is None or getattr(self.reader, "replayed", False):
            return False
        answer = self.front(line)
        if not answer:
            return False
        self.writer.write(answer)
        self.writer.flush()
        return True

    def _decode(self, line: bytes) -> types.JSONRPCMessage | None:
        text = line.decode("utf-8", errors="replace").strip()
        if not text:
            return None
        try:
            raw = json.loads(text)
        except ValueError as exc:
            self._write_error(None, PARSE_ERROR, f"Parse error: not valid JSON ({exc})")
            return None
        except RecursionError:
            # Thousands of nested brackets exhaust the decoder's stack; that must not end serving.
            self._write_error(None, PARSE_ERROR, "Parse error: JSON nested too deeply")
            return None
        if isinstance(raw, dict) and "id" in raw and "method" in raw and _raw_id(raw) is None:
            # The SDK would read it as a notification and never answer it.
            reason = 'Invalid Request: "id" must be a string or an integer'
            self._write_error(None, INVALID_REQUEST, reason)
            return None
        try:
            message: types.JSONRPCMessage = types.jsonrpc_message_adapter.validate_python(
                raw, by_name=False
            )
        except ValueError:
            self._write_error(_raw_id(raw), INVALID_REQUEST, _invalid_request_reason(raw))
            return None
        if isinstance(message, types.JSONRPCRequest):
            self.pending[_key(message.id)] += 1
        elif isinstance(message, types.JSONRPCNotification):
            self._forget_cancelled(message)
        return message

    def _forget_cancelled(self, note: types.JSONRPCNotification) -> None:
        # A cancelled request is never answered, so it must not hold the drain open.
        if note.method == "notifications/cancelled" and isinstance(note.params, dict):
            self._answered(note.params.get("requestId"))

    async def _write_loop(self, from_server: MemoryObjectReceiveStream[SessionMessage]) -> None:
        async with from_server:
            async for item in from_server:
                message = item.message
                silent = getattr(message, "id", None) in self.silent_ids
                if not silent:
                    self._write_line(message.model_dump_json(by_alias=True, exclude_unset=True))
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                    self._answered(message.id)

    def _answered(self, request_id: Any) -> None:
        key = _key(request_id)
        if self.pending[key] > 0:
            self.pending[key] -= 1
            if self.pending[key] == 0:
                del self.pending[key]
        if self.eof and not self.pending:
            self.drained.set()

    def _write_error(self, request_id: Any, code: int, message: str) -> None:
        error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        self._write_line(json.dumps(error, ensure_ascii=False))

    def _write_line(self, data: str) -> None:
        self.writer.write(data.encode("utf-8") + b"\n")
        self.writer.flush()


def _key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id)


def _raw_id(raw: Any) -> Any:
    if isinstance(raw, dict):
        rid = raw.get("id")
        if isinstance(rid, str | int) and not isinstance(rid, bool):
            return rid
    return None


def _invalid_request_reason(raw: Any) -> str:
    if isinstance(raw, list):
        return "Invalid Request: batches are not supported; send one message per line"
    if not isinstance(raw, dict):
        return "Invalid Request: a message must be a JSON object"
    if raw.get("jsonrpc") != "2.0":
        return 'Invalid Request: "jsonrpc" must be "2.0"'
    if "method" in raw and not isinstance(raw.get("method"), str):
        return 'Invalid Request: "method" must be a string'
    return "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
