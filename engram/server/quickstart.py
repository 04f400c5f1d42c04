"""The quick start: ``initialize`` and ``tools/list`` answered from data, before the SDK loads.

Every agent session spawns ``engram-mcp`` and asks for ``initialize`` and ``tools/list``; the
MCP SDK and pydantic take most of a second of CPU just to import. So the server starts here,
with the standard library only, and answers from ``quickstart.json`` — the exact results the
live SDK server produces, built by :mod:`engram.server.quickstart_build` and checked against
the live registry by ``tests/server/test_quickstart.py``.

It answers only messages whose answer it knows byte for byte: a well-formed legacy
``initialize`` (the first one), ``notifications/initialized``, ``tools/list`` without
arguments in the handshake era, ``server/discover`` and ``tools/list`` with a plain 2026-07-28
envelope (what Claude Code opens with), and a plain
``tools/call`` of a journal (``mem_*``) tool in either era (:mod:`engram.server.quick_calls`,
which loads only that tool's module). At the first other line it hands over to the SDK server (:class:`Handover`): the handshake it already
answered is replayed to the SDK silently, then that line and the rest of stdin follow. A
catalogue built from other sources than the running ones (a fingerprint of ``engram/server``,
Engram's and the SDK's versions) is never served.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from engram.server.options import ServerOptions
from engram.server.quick_calls import QuickCalls
from engram.server.selection import choose, unknown_tool_note

CATALOGUE = Path(__file__).with_name("quickstart.json")
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
# The id the replayed initialize carries: its answer is never written to the wire.
REPLAY_ID = "engram-quickstart-replay"
_MAX_SAFE_INT = 2**53


class Handover:
    """What the SDK server must see before it reads stdin: the replayed handshake and the line
    the quick start could not answer.

    Args:
        lines: raw lines to feed first (the replay, then the unanswered line).
        silent_ids: request ids whose answers must not be written (the replayed initialize).
        announced_unknown: the ``--tools`` notes were already printed.
    """

    def __init__(self, lines: list[bytes], silent_ids: set[str], announced_unknown: bool) -> None:
        self.lines = lines
        self.silent_ids = silent_ids
        self.announced_unknown = announced_unknown


class ReplayReader:
    """A reader whose ``readline`` returns the handover lines first, then ``stream``'s."""

    def __init__(self, lines: list[bytes], stream: BinaryIO) -> None:
        self._lines = list(lines)
        self._stream = stream
        self.replayed = False

    def readline(self) -> bytes:
        """The next line, handover lines first (``replayed`` says which the last one was)."""
        self.replayed = bool(self._lines)
        if self._lines:
            return self._lines.pop(0)
        return self._stream.readline()


def source_fingerprint(server_dir: Path | None = None) -> str:
    """A checksum of what the catalogue is built from: ``engram/server`` sources, Engram's
    version and the installed MCP SDK's version."""
    root = server_dir or Path(__file__).parent
    checksum = 0
    for path in sorted(_sources(root)):
        checksum = zlib.crc32(path.relative_to(root).as_posix().encode(), checksum)
        checksum = zlib.crc32(path.read_bytes(), checksum)
    from engram import __version__

    return f"{__version__}/{_sdk_version()}/{checksum:08x}"


def _sources(folder: Path) -> Iterator[Path]:
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir() and entry.name != "__pycache__":
                yield from _sources(Path(entry.path))
            elif entry.name.endswith(".py"):
                yield Path(entry.path)


def _sdk_version() -> str:
    """The installed ``mcp`` distribution's version, from its dist-info folder (no import)."""
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        if "mcp" not in names:
            continue
        for name in names:
            if name.startswith("mcp-") and name.endswith(".dist-info"):
                return name[4:-10]
    return "unknown"


def load_catalogue(path: Path = CATALOGUE) -> dict[str, Any] | None:
    """The catalogue, or None when it is missing, damaged or built from other sources."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != source_fingerprint():
        return None
    return data


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _parsed(line: bytes) -> dict[str, Any] | None:
    """A JSON-RPC 2.0 object, or None for anything else."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    return message


def _plain_id(message: dict[str, Any]) -> bool:
    """An id the SDK writes back exactly as ``json.dumps`` would."""
    rid = message.get("id")
    if isinstance(rid, bool):
        return False
    if isinstance(rid, int):
        return -_MAX_SAFE_INT < rid < _MAX_SAFE_INT
    return isinstance(rid, str) and all(" " <= c <= "~" for c in rid)


INFO_KEYS = frozenset({"name", "version", "title"})
# What 2026-07-28 clients send (Claude Code: a description and its website).
MODERN_INFO_KEYS = INFO_KEYS | {"description", "websiteUrl"}


def _plain_info(info: Any, keys: frozenset[str] = INFO_KEYS) -> bool:
    return (
        isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
        and set(info) <= keys
        and all(isinstance(v, str) for v in info.values())
    )


def _plain_capabilities(caps: Any, modern: bool = False) -> bool:
    """Client capabilities the SDK is sure to accept: known keys, empty objects (roots may
    say listChanged; a 2026-07-28 elicitation may name its empty form and url modes)."""
    if not isinstance(caps, dict):
        return False
    for key, value in caps.items():
        if key == "roots" and _plain_roots(value):
            continue
        if key in ("sampling", "elicitation", "experimental") and value == {}:
            continue
        if modern and key == "elicitation" and _plain_elicitation(value):
            continue
        return False
    return True


def _plain_elicitation(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) <= {"form", "url"}
        and all(mode == {} for mode in value.values())
    )


def _plain_roots(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) <= {"listChanged"}
        and all(isinstance(v, bool) for v in value.values())
    )


def _plain_initialize(params: Any) -> bool:
    return (
        isinstance(params, dict)
        and set(params) == {"protocolVersion", "capabilities", "clientInfo"}
        and isinstance(params["protocolVersion"], str)
        and _plain_capabilities(params["capabilities"])
        and _plain_info(params["clientInfo"])
    )


def _plain_envelope(params: Any, modern: str) -> bool:
    """``{"_meta": {protocolVersion, clientCapabilities[, clientInfo]}}`` and nothing else."""
    if not isinstance(params, dict) or set(params) != {"_meta"}:
        return False
    meta = params["_meta"]
    return (
        isinstance(meta, dict)
        and set(meta) <= {PROTOCOL_VERSION_KEY, CAPABILITIES_KEY, CLIENT_INFO_KEY}
        and meta.get(PROTOCOL_VERSION_KEY) == modern
        and _plain_capabilities(meta.get(CAPABILITIES_KEY), modern=True)
        and (CLIENT_INFO_KEY not in meta or _plain_info(meta[CLIENT_INFO_KEY], MODERN_INFO_KEYS))
    )


class QuickStart:
    """Answers the opening of a connection from the catalogue (see the module docstring).

    Args:
        catalogue: the loaded ``quickstart.json``.
        options: the parsed command line (``--tools``, ``--always-load``).
    """

    def __init__(self, catalogue: dict[str, Any], options: ServerOptions) -> None:
        self.catalogue = catalogue
        self.options = options
        self.version: str | None = None  # the negotiated handshake version
        self.replay: list[bytes] = []
        self.announced_unknown = False
        tools = catalogue["tools"]
        chosen, self.unknown = choose(options.tools, [(t["name"], t["profiles"]) for t in tools])
        self.chosen = [tools[i] for i in chosen]
        self.calls = QuickCalls(catalogue, self.chosen)

    def answer(self, line: bytes) -> bytes | None:
        """The answer line for ``line`` (b"" for a notification it takes, or a blank line);
        None when the SDK server must answer it."""
        if not line.strip():
            return b""
        message = _parsed(line)
        if message is None:
            return None
        if "id" not in message:
            if (
                message.get("method") == "notifications/initialized"
                and self.version
                and message.get("params") is None
            ):
                self.replay.append(line)
                return b""
            return None
        return self._request(message, line)

    def after_handover(self, line: bytes) -> bytes | None:
        """Once the SDK serves the connection: the answer to a ``tools/list`` or a journal
        ``tools/call`` known exactly here (None: the SDK answers). A later ``initialize``
        goes to the SDK, which renegotiates; from then on only enveloped requests are served
        here."""
        message = _parsed(line)
        if message is None or "id" not in message:
            return None
        method = message.get("method")
        if method == "initialize":
            self.version = None
        # tools/list only once the --tools notes are out: the SDK must not print them twice.
        listable = method == "tools/list" and (self.announced_unknown or not self.unknown)
        if method != "tools/call" and not listable:
            return None
        return self._request(message, line)

    def _request(self, message: dict[str, Any], line: bytes) -> bytes | None:
        if not _plain_id(message) or set(message) - {"jsonrpc", "id", "method", "params"}:
            return None
        method, params = message.get("method"), message.get("params")
        if method == "initialize" and self.version is None and _plain_initialize(params):
            return self._initialize(message, line)
        if method == "tools/list" and self.version and params in (None, {}):
            return self._respond(message["id"], self._tools_result(self.version))
        modern = self.catalogue["modern"]
        if method == "tools/list" and _plain_envelope(params, modern["version"]):
            result = {**modern["tools_result"], "tools": self._tool_list(modern["version"])}
            return self._respond(message["id"], result)
        if method == "server/discover" and _plain_envelope(params, modern["version"]):
            return self._respond(message["id"], modern["discover_result"])
        if method == "tools/call":
            return self._call(message["id"], params, modern["version"])
        return None

    def _call(self, rid: Any, params: Any, modern: str) -> bytes | None:
        """A journal tool's answer (see :mod:`engram.server.quick_calls`), or None."""
        if isinstance(params, dict) and "_meta" in params:
            envelope = {"_meta": params["_meta"]}
            if not _plain_envelope(envelope, modern):
                return None
            params, version = {k: v for k, v in params.items() if k != "_meta"}, modern
        elif self.version is None:
            return None  # before the handshake the SDK refuses the call
        else:
            version = self.version
        if not self.calls.serves(params, version):
            return None
        return self.calls.answer(rid, params, version)

    def _initialize(self, message: dict[str, Any], line: bytes) -> bytes:
        known = self.catalogue["initialize"]
        requested = message["params"]["protocolVersion"]
        self.version = requested if requested in known else self.catalogue["latest_handshake"]
        replayed = {**message, "id": REPLAY_ID}
        self.replay.append(_dump(replayed) + b"\n")
        return self._respond(message["id"], known[self.version])

    def _tools_result(self, version: str) -> dict[str, Any]:
        return {**self.catalogue["tools_result"], "tools": self._tool_list(version)}

    def _tool_list(self, version: str) -> list[dict[str, Any]]:
        if not self.announced_unknown:
            for name in self.unknown:
                print(unknown_tool_note(name), file=sys.stderr)
            self.announced_unknown = True
        variant = self.catalogue["tool_variants"][version]
        entries = []
        for tool in self.chosen:
            listing = tool["listings"][variant]
            if self.options.always_load and "always_load" in tool:
                listing = tool["always_load"][variant]
            entries.append(listing)
        return entries

    def _respond(self, rid: Any, result: dict[str, Any]) -> bytes:
        return _dump({"jsonrpc": "2.0", "id": rid, "result": result}) + b"\n"

    def serve(self, reader: BinaryIO, writer: BinaryIO) -> Handover | None:
        """Answer lines until one needs the SDK (returns the :class:`Handover`) or stdin closes
        (returns None)."""
        while True:
            line = reader.readline()
            if not line:
                return None
            answer = self.answer(line)
            if answer is None:
                return Handover([*self.replay, line], {REPLAY_ID}, self.announced_unknown)
            if answer:
                writer.write(answer)
                writer.flush()


def claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """Take stdin/stdout for the wire; afterwards fd 1 and ``sys.stdout`` write to stderr."""
    sys.stdout.flush()
    wire_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return sys.stdin.buffer, wire_out
