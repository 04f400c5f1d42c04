"""The hook's fast path: hand the event to a running ``engram serve`` over its local socket.

A hook process that opens the store itself pays for ``json``, ``sqlite3``, ``pathlib``,
``dataclasses`` and the memory layer on every call (about 5x a bare interpreter). When the local
runtime is up, ``engram hook <host>`` instead sends the host's stdin to ``POST /hooks/<host>``
and prints the answer it gets back. This module imports only ``os``, ``sys`` and ``_socket``
(the C module: ``socket`` itself pulls in ``enum`` and ``selectors``), never the store, the
memory layer or ``json``.

Where: ``ENGRAM_SOCKET`` (a Unix socket path) when set, else ``127.0.0.1:ENGRAM_PORT``
(default 7437). The request names the caller's data dir, so a server over another store
refuses it. Anything short of a 200 (nothing listening, a refusal, a timeout, a garbled
answer) returns None and the caller runs the hook in-process, exactly as without a server.
"""

from __future__ import annotations

import _socket
import os

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs more than this hook
if TYPE_CHECKING:
    from collections.abc import Mapping

DEFAULT_PORT = 7437
CONNECT_TIMEOUT_S = 0.25
# Hosts give a hook 10 s; leave the in-process fallback most of it.
ANSWER_TIMEOUT_S = 4.0
MAX_ANSWER_BYTES = 1 << 20
# Bytes sent as they are in a header value (everything else is %XX-escaped, UTF-8).
_PLAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./~:@+,=")
# Settings the hook path reads from the caller's environment, forwarded by header.
FORWARDED_ENV = {
    "ENGRAM_PROJECT": "X-Engram-Project",
    "ENGRAM_HOOK_PACK_BYTES": "X-Engram-Pack-Bytes",
    "ENGRAM_HOOK_DELTA_BYTES": "X-Engram-Delta-Bytes",
    "ENGRAM_SESSION_OBJECTIVE": "X-Engram-Session-Objective",
}


def quote(text: str) -> str:
    """``text`` as UTF-8 with every byte outside :data:`_PLAIN` written ``%XX``."""
    return "".join(chr(b) if b in _PLAIN else f"%{b:02X}" for b in text.encode("utf-8"))


def unquote(text: str) -> str:
    """The inverse of :func:`quote` (malformed escapes are kept as they are)."""
    parts = text.split("%")
    out = bytearray(parts[0].encode("utf-8"))
    for part in parts[1:]:
        try:
            out += bytes.fromhex(part[:2]) + part[2:].encode("utf-8")
        except ValueError:
            out += b"%" + part.encode("utf-8")
    return out.decode("utf-8", "replace")


def data_dir_of(env: Mapping[str, str]) -> str | None:
    """The data dir the in-process hook would open (None when it would fail: let it say why)."""
    raw = env.get("ENGRAM_DATA_DIR", "").strip()
    if raw:
        return raw if os.path.isabs(raw) else None
    home = env.get("HOME", "").strip() or env.get("USERPROFILE", "").strip()
    home = home or os.path.expanduser("~")
    return os.path.join(home, ".engram") if os.path.isabs(home) else None


def _port(env: Mapping[str, str]) -> int:
    raw = env.get("ENGRAM_PORT", "").strip()
    if raw.isdigit() and raw.isascii() and 1 <= int(raw) <= 65535:
        return int(raw)
    return DEFAULT_PORT


def build_request(host: str, body: bytes, env: Mapping[str, str]) -> bytes | None:
    """The HTTP/1.1 request for one event (None when there is no data dir to name)."""
    data_dir = data_dir_of(env)
    if data_dir is None:
        return None
    lines = [
        f"POST /hooks/{host} HTTP/1.1",
        "Host: 127.0.0.1",
        "Connection: close",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        f"X-Engram-Data-Dir: {quote(data_dir)}",
        f"X-Engram-Cwd: {quote(os.getcwd())}",
    ]
    lines += [f"{name}: {quote(env[key])}" for key, name in FORWARDED_ENV.items() if key in env]
    token = env.get("ENGRAM_HTTP_TOKEN", "").strip()
    if token and token.isascii() and token.isprintable():
        lines.append(f"Authorization: Bearer {token}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + body


def _connect(env: Mapping[str, str]) -> _socket.socket:
    path = env.get("ENGRAM_SOCKET", "").strip()
    if path and hasattr(_socket, "AF_UNIX"):
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        address: str | tuple[str, int] = path
    else:
        sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        address = ("127.0.0.1", _port(env))
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        sock.connect(address)
        sock.settimeout(ANSWER_TIMEOUT_S)
    except BaseException:
        sock.close()
        raise
    return sock


def _receive(sock: _socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_ANSWER_BYTES:
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def parse_answer(response: bytes) -> tuple[bytes, str] | None:
    """``(stdout bytes, warning line)`` from a 200 response; None for anything else."""
    head, sep, body = response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if not sep or lines[0].split(" ")[1:2] != ["200"]:
        return None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "transfer-encoding" in headers or headers.get("x-engram-hook") != "1":
        return None
    length = headers.get("content-length", "")
    if not length.isdigit() or int(length) != len(body):
        return None
    return body, unquote(headers.get("x-engram-hook-warning", ""))


def ask_runtime(host: str, body: bytes, env: Mapping[str, str]) -> tuple[bytes, str] | None:
    """The running runtime's answer to one event (stdout bytes, warning), or None.

    None means: do it in-process (no server, another data dir, a refusal, a timeout...)."""
    if not host.replace("-", "").isalnum() or not host.isascii():
        return None
    request = build_request(host, body, env)
    if request is None:
        return None
    try:
        sock = _connect(env)
        try:
            sock.sendall(request)
            response = _receive(sock)
        finally:
            sock.close()
    except OSError:
        return None
    return parse_answer(response)
